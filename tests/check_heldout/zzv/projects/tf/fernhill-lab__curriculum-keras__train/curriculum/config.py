import json
from dataclasses import dataclass, field, asdict


@dataclass
class TrainConfig:
    data: str = "data/tiny_imagenet64.npz"
    image_size: int = 64
    batch_size: int = 64              # per worker
    base_lr: float = 0.001
    optimizer: str = "adam"
    stage_epochs: list = field(default_factory=lambda: [4, 4, 6, 8])
    stage_fracs: list = field(default_factory=lambda: [0.25, 0.5, 0.75, 1.0])
    stage_lr_decay: float = 0.5
    label_smoothing: float = 0.1
    out_dir: str = "runs/curriculum"

    def scaled_lr(self, world_size):
        """Linear scaling rule: the effective batch is batch_size * world_size."""
        return self.base_lr * world_size

    @classmethod
    def from_json(cls, path):
        with open(path) as fh:
            return cls(**json.load(fh))

    def dump(self):
        return json.dumps(asdict(self), indent=2)
