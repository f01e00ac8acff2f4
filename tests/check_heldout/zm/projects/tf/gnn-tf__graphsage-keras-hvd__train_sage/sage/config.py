from dataclasses import dataclass


@dataclass
class SageConfig:
    epochs: int = 20
    batch_size: int = 512
    lr: float = 3e-3
    hidden: int = 128
    fanouts: tuple = (10, 5)
    dropout: float = 0.5
    seed: int = 0
    # average gradients over workers; flip on for multi-worker jobs
    distributed: bool = False
