from dataclasses import dataclass, fields

import yaml


@dataclass
class SFTConfig:
    train_files: str = "data/sft/train_*.npy"
    val_files: str = "data/sft/val_*.npy"
    pretrained: str = ""
    seq_len: int = 256
    vocab: int = 50000
    width: int = 384
    depth: int = 6
    batch_size: int = 16
    lr: float = 1e-4
    warmup_steps: int = 200
    epochs: int = 3
    save_every_steps: int = 500
    out_dir: str = "runs/sft"

    @classmethod
    def load(cls, path, overrides=()):
        raw = yaml.safe_load(open(path)) if path else {}
        for item in overrides:
            k, v = item.split("=", 1)
            raw[k] = yaml.safe_load(v)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})
