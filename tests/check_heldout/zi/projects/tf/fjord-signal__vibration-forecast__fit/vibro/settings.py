import json
from dataclasses import dataclass, asdict


@dataclass
class Settings:
    data_file: str = "data/turbine_accel.npy"
    window: int = 512
    horizon: int = 64
    stride: int = 32
    val_fraction: float = 0.1
    batch_size: int = 64
    lr: float = 1e-3
    warmup_epochs: int = 2
    epochs: int = 30
    filters: int = 64
    pin_gpu: bool = False          # set true on multi-GPU nodes
    mixed_precision: bool = False
    out_dir: str = "runs/vibro"

    @classmethod
    def load(cls, path=None, **overrides):
        values = {}
        if path:
            with open(path) as f:
                values.update(json.load(f))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)
