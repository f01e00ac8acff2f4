from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "../input/isic-128"
    out_dir: str = "models"
    img_size: int = 128
    folds: int = 5
    run_folds: tuple = (0, 1, 2, 3, 4)
    epochs: int = 15
    batch_size: int = 32          # per replica
    lr: float = 1e-3              # single-replica lr; scaled by the number of replicas in train.py
    warmup_epochs: int = 3
    label_smoothing: float = 0.05
    seed: int = 42
