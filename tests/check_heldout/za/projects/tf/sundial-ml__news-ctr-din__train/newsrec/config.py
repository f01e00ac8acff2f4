import json
from dataclasses import dataclass, fields


@dataclass
class Config:
    train_path: str = "data/clicks_train.npz"
    valid_path: str = "data/clicks_valid.npz"
    n_users: int = 1_000_000
    n_items: int = 200_000
    history_len: int = 50
    dim: int = 32
    global_batch_size: int = 2048   # total over all workers; learning_rate is tuned for it
    learning_rate: float = 1e-3
    epochs: int = 3
    ckpt_dir: str = "ckpt/din"

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in names})
