from dataclasses import dataclass


@dataclass
class RunConfig:
    data: str = "/datasets/ecg/ptb_500hz"
    epochs: int = 40
    batch_size: int = 64       # per worker
    lr: float = 5e-4           # per worker; multiplied by the world size
    ckpt_path: str = "checkpoints/ecg_rhythm.weights.h5"
