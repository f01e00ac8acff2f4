from dataclasses import dataclass


@dataclass
class Config:
    train_list: str = "lists/train_pages.txt"
    val_list: str = "lists/val_pages.txt"
    image_size: int = 640
    batch_size: int = 8
    epochs: int = 30
    base_lr: float = 1e-3
    weight_decay: float = 1e-4
    ckpt_dir: str = "ckpt/textblock"
    keep_ckpts: int = 3
    log_every: int = 20
