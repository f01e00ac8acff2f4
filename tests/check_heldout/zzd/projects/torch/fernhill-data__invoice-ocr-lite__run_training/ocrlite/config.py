from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_file: str = "data/crops_v2.npz"
    num_classes: int = 36
    width: int = 32
    batch_size: int = 64          # per worker
    lr: float = 3e-4              # tuned on 1 GPU with batch 64
    weight_decay: float = 1e-4
    epochs: int = 20
    warmup_epochs: int = 1
    ckpt_path: str = "checkpoints/cropnet.pt"
    log_every: int = 50
