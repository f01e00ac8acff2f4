import json
from dataclasses import dataclass, field, asdict


@dataclass
class TrainConfig:
    data_dir: str = "data/coco_feats"
    out_dir: str = "runs/clipmini"
    epochs: int = 10
    batch_size: int = 128          # per worker
    lr: float = 5e-4               # single-worker lr, scaled by the number of workers
    weight_decay: float = 0.1
    embed_dim: int = 256
    vocab_size: int = 30000
    max_len: int = 32
    init_temperature: float = 0.07
    recall_ks: list = field(default_factory=lambda: [1, 5, 10])
    seed: int = 42

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))

    def to_dict(self):
        return asdict(self)
