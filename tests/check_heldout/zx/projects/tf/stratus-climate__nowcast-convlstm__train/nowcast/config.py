import json
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class ExperimentConfig:
    data_file: str = "data/radar_128.npz"
    input_frames: int = 6
    output_frames: int = 6
    filters: int = 32
    global_batch: int = 32
    lr: float = 1e-3
    clipnorm: float = 1.0
    epochs: int = 40
    csi_threshold: float = 0.1
    rain_scale: float = 64.0
    seed: int = 2024

    @classmethod
    def load(cls, path):
        if not os.path.exists(path):
            return cls()
        with open(path) as fh:
            return cls(**json.load(fh))
