import json
from dataclasses import dataclass, field
from typing import Any, Dict


@dataclass
class RunConfig:
    data: Dict[str, Any]
    model: Dict[str, Any]
    optim: Dict[str, Any] = field(default_factory=lambda: {"name": "adagrad", "lr": 0.05})
    train: Dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def from_json(path):
        with open(path) as f:
            return RunConfig(**json.load(f))
