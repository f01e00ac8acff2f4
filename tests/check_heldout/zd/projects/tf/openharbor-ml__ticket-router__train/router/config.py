import json
import os
from dataclasses import dataclass, fields


@dataclass
class RouterConfig:
    data_path: str = "/mnt/objstore/openharbor/tickets/tokenized_v5.npz"
    export_dir: str = "/mnt/objstore/openharbor/models/ticket-router"
    vocab_size: int = 30000
    embed_dim: int = 128
    batch_size: int = 128
    learning_rate: float = 2e-3
    epochs: int = 8

    @classmethod
    def load(cls, path=None):
        values = {}
        if path and os.path.exists(path):
            with open(path) as f:
                values.update(json.load(f))
        for f in fields(cls):
            env_key = "ROUTER_" + f.name.upper()
            if env_key in os.environ:
                values[f.name] = type(f.default)(os.environ[env_key])
        return cls(**values)
