from dataclasses import dataclass, field


@dataclass
class CFG:
    data_dir: str = "../input/boneage-npy"
    out_dir: str = "./output"
    n_folds: int = 5
    folds: list = field(default_factory=lambda: [0, 1, 2, 3, 4])
    epochs: int = 12
    batch_size: int = 32          # per GPU
    lr: float = 3e-4              # tuned on one V100 with batch_size=32
    weight_decay: float = 1e-4
    ema_decay: float = 0.999
    num_workers: int = 4
    seed: int = 2021
    img_size: int = 128
