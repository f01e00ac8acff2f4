import json
from dataclasses import asdict, dataclass, field


@dataclass
class Config:
    data_dir: str = "data/nsynth-guitar"
    out_dir: str = "runs/aae"
    sample_rate: int = 16000
    segment: int = 16384
    latent_dim: int = 64
    channels: list = field(default_factory=lambda: [32, 64, 128, 256])
    batch_size: int = 16          # per GPU
    lr: float = 2e-4              # single-GPU value, scaled by the number of workers in train.py
    betas: tuple = (0.5, 0.9)
    epochs: int = 200
    adv_weight: float = 0.1
    adv_start_epoch: int = 5
    save_every: int = 5

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
