from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_dir: str = "./data/stl10"
    image_size: int = 96
    batch_size: int = 64          # per worker
    epochs: int = 100
    base_lr: float = 0.2          # for a global batch of 256
    weight_decay: float = 1.5e-6
    momentum_base: float = 0.996  # EMA of the target network
    warmup_epochs: int = 10
    workers: int = 6
    amp: bool = False
    ckpt_dir: str = "./checkpoints"
    ckpt_every: int = 5
    seed: int = 1234
