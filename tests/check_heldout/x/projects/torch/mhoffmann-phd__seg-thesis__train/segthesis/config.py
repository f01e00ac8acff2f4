from dataclasses import dataclass


@dataclass
class TrainConfig:
    data: str = "data/cells"          # folder with images.npy / masks.npy
    out_dir: str = "runs/unet"
    epochs: int = 60
    batch_size: int = 8               # per GPU
    lr: float = 1e-3                  # single-GPU value; Trainer.configure_optimizers scales it
    weight_decay: float = 1e-4
    width: int = 16
    patience: int = 8
    num_workers: int = 2
    val_fraction: float = 0.15
    seed: int = 1234
