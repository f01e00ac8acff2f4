import json
import os
from dataclasses import dataclass, field
from typing import List

DEFAULT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs", "base.json")


@dataclass
class Config:
    data_glob: str
    eval_glob: str
    vocab: int = 4000000
    dim: int = 32
    n_cat: int = 26
    n_dense: int = 13
    hidden: List[int] = field(default_factory=lambda: [1024, 512, 256])
    batch_size: int = 4096
    emb_lr: float = 0.02
    lr: float = 5e-4
    train_steps: int = 40000
    eval_every: int = 4000
    out_dir: str = "./out"
    num_shards: int = 32

    @classmethod
    def load(cls, path=None, **overrides):
        with open(path or DEFAULT) as f:
            d = json.load(f)
        d.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**d)
