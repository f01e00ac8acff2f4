from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    h5_path: str = "data/gw_darcy_64.h5"   # datasets logK (N,64,64), wells (N,64,64), head (N,64,64)
    n_val: int = 512
    batch_size: int = 32                    # per worker
    base_lr: float = 1e-3
    warmup_epochs: int = 3
    epochs: int = 80
    mass_weight: float = 0.05               # weight of the discrete mass-balance residual
    out_dir: str = "out/gw_cnn"
    seed: int = 2024
