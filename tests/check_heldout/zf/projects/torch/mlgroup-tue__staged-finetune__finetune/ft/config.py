from dataclasses import dataclass, field
from typing import List


@dataclass
class Stage:
    name: str
    epochs: int
    lr: float
    train_backbone: bool


@dataclass
class FTConfig:
    data_dir: str = "data/flowers"
    num_classes: int = 102
    batch_size: int = 32          # per worker
    weight_decay: float = 0.05
    ema_decay: float = 0.999
    out_dir: str = "checkpoints"
    stages: List[Stage] = field(default_factory=lambda: [
        Stage("head", epochs=5, lr=1e-3, train_backbone=False),
        Stage("full", epochs=15, lr=1e-4, train_backbone=True),
    ])
