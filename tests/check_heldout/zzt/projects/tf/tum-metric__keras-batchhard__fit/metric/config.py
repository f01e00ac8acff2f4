from dataclasses import dataclass


@dataclass
class Config:
    data: str = "data/cars64.npz"
    classes_per_batch: int = 16      # P
    samples_per_class: int = 4       # K
    embedding_dim: int = 128
    margin: float = 0.3
    lr: float = 1e-4                 # per worker, scaled by hvd.size() in fit.py
    epochs: int = 60
    warmup_epochs: int = 3
    out_dir: str = "experiments/batchhard"
