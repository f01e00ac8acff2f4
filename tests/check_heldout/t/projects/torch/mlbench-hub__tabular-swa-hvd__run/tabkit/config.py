from dataclasses import dataclass


@dataclass
class TrainConfig:
    data: str = "data/covtype.npz"
    out_dir: str = "artifacts"
    global_batch_size: int = 2048      # split across workers; the lr below is for this global batch
    max_epochs: int = 60
    swa_start: int = 40
    swa_lr: float = 2e-4
    patience: int = 8
    hidden: int = 512
    dropout: float = 0.15
    find_lr: bool = True
    base_lr: float = 1e-3              # used when find_lr is False
    seed: int = 7
