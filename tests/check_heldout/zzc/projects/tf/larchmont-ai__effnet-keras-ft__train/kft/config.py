from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_dir: str = "data/food101_npz"
    backbone_weights: str = "weights/efficientnetb0_notop.weights.h5"
    num_classes: int = 101
    image_size: int = 224
    batch_size: int = 32          # per worker
    head_lr: float = 1e-3         # single-worker lr, stage 1
    ft_lr: float = 1e-4           # single-worker lr, stage 2
    head_epochs: int = 5
    ft_epochs: int = 15
    warmup_epochs: int = 2
    unfreeze_from: str = "block6a_expand_conv"
    patience: int = 4
    ckpt_path: str = "checkpoints/best.keras"
    export_path: str = "export/effnet_food101.keras"
