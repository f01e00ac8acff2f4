from dataclasses import dataclass, field


@dataclass
class TrainConfig:
    data_file: str = "/lus/grand/projects/datascience/cosmoflow/cosmo_64.h5"
    out_dir: str = "runs/cosmoflow"
    epochs: int = 16
    global_batch_size: int = 64          # fixed over all ranks; each rank gets global / size
    lr: float = 2e-3                     # tuned for the global batch above, not per rank
    weight_decay: float = 0.0
    val_fraction: float = 0.1
    amp: bool = True
    checkpoint_every: int = 4
    seed: int = 1234
    target_names: list = field(default_factory=lambda: ["omega_m", "sigma_8", "n_s", "h"])
