import json
from dataclasses import dataclass, fields


@dataclass
class RunConfig:
    local_batch_size: int = 128
    grad_accum: int = 1
    world_size: int = 1
    base_lr: float = 0.1            # per 256 images
    warmup_epochs: int = 2
    max_epochs: int = 40
    weight_decay: float = 5e-5
    label_smoothing: float = 0.1
    target_accuracy: float = 0.70
    seed: int = 1

    @property
    def global_batch_size(self):
        return self.local_batch_size * self.grad_accum * self.world_size

    @property
    def peak_lr(self):
        # Goyal et al.: lr proportional to the global batch
        return self.base_lr * self.global_batch_size / 256

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in names})
