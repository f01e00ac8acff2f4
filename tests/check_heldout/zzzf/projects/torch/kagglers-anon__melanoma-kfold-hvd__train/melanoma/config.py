from dataclasses import dataclass, field


@dataclass
class Config:
    data_path: str = "data/train_32.npz"
    out_dir: str = "checkpoints"
    n_folds: int = 5
    folds: list = field(default_factory=lambda: [0, 1, 2, 3, 4])
    fold_seed: int = 42
    epochs: int = 12
    batch_size: int = 64          # per rank
    base_lr: float = 3e-4         # single-worker lr, scaled by hvd.size()
    weight_decay: float = 1e-5
    patience: int = 3
    num_workers: int = 2
    amp: bool = False
