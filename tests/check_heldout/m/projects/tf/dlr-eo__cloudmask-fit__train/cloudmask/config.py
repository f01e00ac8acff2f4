from dataclasses import dataclass, field


@dataclass
class TrainConfig:
    train_glob: str = "data/s2_cloud/train/*.tfrecord"
    val_glob: str = "data/s2_cloud/val/*.tfrecord"
    n_train: int = 48000
    n_val: int = 4000
    bands: int = 13
    tile: int = 256
    n_classes: int = 3            # clear, thick cloud, thin cloud / shadow
    batch_size: int = 12          # per worker
    lr: float = 3e-4              # single-worker value
    lr_min: float = 1e-6
    epochs: int = 80
    widths: tuple = (32, 64, 128, 256)
    out_dir: str = "runs/cloudmask"
    class_weights: list = field(default_factory=lambda: [1.0, 2.0, 3.0])
