import json
from dataclasses import dataclass, asdict, fields


@dataclass
class Config:
    data: str = "data/eurosat_feats.npz"
    workdir: str = "work/coreset"
    rounds: int = 6
    init_size: int = 500
    budget: int = 500
    epochs: int = 12
    batch_size: int = 64
    base_lr: float = 0.002
    warmup_steps: int = 50
    seed: int = 11

    @classmethod
    def from_file(cls, path):
        with open(path) as f:
            return cls(**json.load(f))

    def override(self, pairs):
        types = {f.name: f.type for f in fields(self)}
        for kv in pairs:
            k, v = kv.split("=", 1)
            t = types[k]
            setattr(self, k, {"int": int, "float": float, "str": str}.get(getattr(t, "__name__", t), str)(v))
        return self

    def to_dict(self):
        return asdict(self)
