import json
from dataclasses import dataclass, fields


@dataclass
class Config:
    data: str = "data/tiles.npz"
    tile: int = 64
    classes: int = 4
    micro_batch: int = 8
    accum_steps: int = 4
    lr: float = 1e-3
    epochs: int = 40
    ckpt_dir: str = "ckpt"
    keep: int = 3
    fp16_allreduce: bool = True

    @classmethod
    def from_json(cls, path=None, **overrides):
        values = {}
        if path:
            with open(path) as fh:
                values.update(json.load(fh))
        values.update({k: v for k, v in overrides.items() if v is not None})
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})
