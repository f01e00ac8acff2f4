from dataclasses import dataclass, field
from typing import Tuple


@dataclass
class ProbeConfig:
    encoder_weights: str = "weights/encoder.weights.h5"
    image_size: Tuple[int, int] = (32, 32)
    num_classes: int = 10
    batch_size: int = 512           # per worker
    epochs: int = 90
    lr: float = 0.1                 # single-worker lr, scaled by the number of workers
    weight_decay: float = 0.0
    out_dir: str = "probe_out"
    label_smoothing: float = 0.0
    tags: list = field(default_factory=list)
