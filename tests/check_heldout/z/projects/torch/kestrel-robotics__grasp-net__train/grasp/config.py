from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_root: str = "/datasets/grasp/v4"
    epochs: int = 25
    batch_size: int = 64          # per worker
    lr: float = 1e-3              # single-worker lr
    scale_lr: bool = True         # multiply lr by the number of workers
    weight_decay: float = 1e-4
    seed: int = 7
    out_dir: str = "checkpoints/grasp"
