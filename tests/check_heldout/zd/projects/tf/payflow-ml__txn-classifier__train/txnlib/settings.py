import json
import os
from dataclasses import dataclass, field
from typing import List


@dataclass
class JobSettings:
    train_path: str
    val_path: str
    checkpoint_dir: str = "/tmp/txn-classifier"
    batch_size: int = 256
    lr: float = 1e-3
    epochs: int = 10
    hidden_units: List[int] = field(default_factory=lambda: [128, 64])


def load(path=None):
    path = path or os.environ.get("PAYFLOW_JOB_CONFIG", "config/job.json")
    with open(path) as f:
        return JobSettings(**json.load(f))
