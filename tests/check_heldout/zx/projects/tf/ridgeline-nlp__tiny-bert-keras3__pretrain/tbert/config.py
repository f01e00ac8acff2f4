import json
from dataclasses import asdict, dataclass, field
from typing import List


@dataclass
class PretrainConfig:
    train_files: str = "data/wiki_tfrec/part-*.tfrecord"
    vocab_size: int = 30522
    max_len: int = 128
    max_predictions: int = 20
    hidden: int = 312
    layers: int = 4
    heads: int = 12
    batch_size: int = 128
    peak_lr: float = 1e-4
    warmup_steps: int = 2000
    epochs: int = 10
    steps_per_epoch: int = 5000
    special_ids: List[int] = field(default_factory=lambda: [0, 101, 102, 103])

    @classmethod
    def from_json(cls, path):
        try:
            with open(path) as f:
                return cls(**json.load(f))
        except FileNotFoundError:
            return cls()

    def __str__(self):
        return json.dumps(asdict(self))
