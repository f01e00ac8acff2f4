import dataclasses


@dataclasses.dataclass
class TrainConfig:
    num_classes: int = 30
    train_videos: int = 384
    val_videos: int = 96
    frames: int = 8
    size: int = 32
    batch_size: int = 8          # per worker
    base_lr: float = 0.002       # single-worker lr
    warmup_epochs: int = 3
    epochs: int = 30
    decay_epochs: tuple = (18, 26)
    test_clips: int = 3
    ckpt_dir: str = "ckpt/movinet_a0"
