import json
from dataclasses import dataclass, field, fields


@dataclass
class TrainConfig:
    train_glob: str = "data/shards/train-*.jsonl.gz"
    eval_glob: str = "data/shards/heldout-*.jsonl.gz"
    vocab_size: int = 32768
    seq_len: int = 256
    d_model: int = 384
    batch_size: int = 32
    lr: float = 3e-4
    weight_decay: float = 0.01
    warmup_steps: int = 500
    steps_per_epoch: int = 2000
    epochs: int = 10
    eval_batches: int = 50
    num_workers: int = 2
    out_dir: str = "runs/streamtok"
    fp16: bool = False
    # filled in by the launcher
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    tags: list = field(default_factory=list)

    @classmethod
    def from_json(cls, path=None, **overrides):
        data = {}
        if path:
            with open(path) as f:
                data = json.load(f)
        data.update({k: v for k, v in overrides.items() if v is not None})
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
