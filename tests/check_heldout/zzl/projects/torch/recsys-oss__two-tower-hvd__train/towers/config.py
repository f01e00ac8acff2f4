from dataclasses import dataclass, fields


@dataclass
class Config:
    interactions: str = "data/interactions.pt"
    num_users: int = 100_000
    num_items: int = 50_000
    dim: int = 64
    batch_size: int = 2048     # per worker
    lr: float = 1e-3
    epochs: int = 10
    temperature: float = 0.05
    eval_k: int = 50
    ckpt: str = "checkpoints/two_tower.pt"

    @classmethod
    def from_overrides(cls, overrides):
        cfg = cls()
        types = {f.name: f.type for f in fields(cls)}
        for item in overrides or []:
            key, val = item.split("=", 1)
            setattr(cfg, key, eval(types[key])(val) if isinstance(types[key], str)
                    else types[key](val))
        return cfg
