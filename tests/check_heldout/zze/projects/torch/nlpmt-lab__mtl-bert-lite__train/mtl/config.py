import json
from dataclasses import asdict, dataclass, fields


@dataclass
class TrainConfig:
    vocab_size: int = 8000
    num_intents: int = 26
    num_slots: int = 120
    hidden: int = 256
    batch_size: int = 32          # per worker
    accum_steps: int = 2          # micro-batches per optimizer step
    epochs: int = 10
    lr: float = 3e-4              # single-worker peak lr; train.py scales it by hvd.size()
    warmup_steps: int = 200
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    intent_weight: float = 1.0
    slot_weight: float = 0.5
    seed: int = 1234
    num_workers: int = 2

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        known = {f.name for f in fields(cls)}
        unknown = set(raw) - known
        if unknown:
            raise ValueError(f"unknown config keys: {sorted(unknown)}")
        return cls(**raw)

    def to_dict(self):
        return asdict(self)
