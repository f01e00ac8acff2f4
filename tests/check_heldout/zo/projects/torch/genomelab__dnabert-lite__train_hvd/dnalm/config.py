from dataclasses import dataclass, field, fields
from typing import Optional

import yaml


@dataclass
class TrainConfig:
    train_tsv: str = "data/promoters/train.tsv"
    val_tsv: str = "data/promoters/dev.tsv"
    k: int = 6
    max_len: int = 300
    d_model: int = 256
    n_layers: int = 4
    n_heads: int = 8
    num_labels: int = 2
    # global batch: split evenly over the Horovod workers
    global_batch_size: int = 256
    lr: float = 2e-4
    weight_decay: float = 0.01
    epochs: int = 10
    warmup_steps: int = 500
    seed: int = 17
    fp16_allreduce: bool = False
    output_dir: str = "checkpoints/dnabert-lite"
    resume: Optional[str] = None
    label_smoothing: float = 0.0
    tags: list = field(default_factory=list)

    @classmethod
    def from_yaml(cls, path, **overrides):
        with open(path) as f:
            raw = yaml.safe_load(f) or {}
        raw.update({k: v for k, v in overrides.items() if v is not None})
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in names})
