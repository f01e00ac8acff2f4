from dataclasses import dataclass, field
from typing import List


@dataclass
class TrainConfig:
    data_root: str = 'datasets/VeRi'
    backbone_weights: str = 'pretrained/resnet50_ibn_a.pth'
    img_size: tuple = (256, 256)
    num_identities: int = 16      # P, per GPU
    num_instances: int = 4        # K
    base_lr: float = 0.01
    momentum: float = 0.9
    weight_decay: float = 1e-4
    warmup_iters: int = 500
    lr_steps: List[int] = field(default_factory=lambda: [25, 45])
    max_epochs: int = 60
    eval_period: int = 5
    seed: int = 1234
    out_dir: str = 'output/veri776'
