from dataclasses import asdict, dataclass, field, fields
from typing import List


@dataclass
class TrainConfig:
    data_dir: str = "/datasets/kitti_depth"
    crop: List[int] = field(default_factory=lambda: [256, 1216])
    batch_size: int = 4
    epochs: int = 30
    lr: float = 1e-4
    weight_decay: float = 1e-6
    lr_decay_epochs: int = 10
    amp: bool = True
    max_depth: float = 85.0
    clip_grad: float = 5.0
    pretrained: str = "weights/resnet18_encoder.pth"
    out_dir: str = "runs/depth"
    num_workers: int = 4
    seed: int = 7

    def update(self, overrides):
        names = {f.name: f.type for f in fields(self)}
        for k, v in overrides.items():
            if v is None or k not in names:
                continue
            setattr(self, k, v)
        return self

    def to_dict(self):
        return asdict(self)
