from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_dir: str = "data/landcover"
    image_size: int = 256
    num_classes: int = 5
    batch_size: int = 8  # per worker
    epochs: int = 40
    lr: float = 1e-3  # single-worker lr, scaled by hvd.size() in train.py
    warmup_epochs: int = 2
    shuffle_buffer: int = 2048
    ckpt_dir: str = "checkpoints/unet"
    max_to_keep: int = 3
    log_every: int = 50
