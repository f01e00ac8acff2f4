import json
from dataclasses import dataclass, fields


@dataclass
class ClassifierConfig:
    train_file: str = "data/sst2/train.tsv"
    dev_file: str = "data/sst2/dev.tsv"
    output_dir: str = "outputs/sst2"
    vocab_size: int = 30000
    max_seq_len: int = 128
    d_model: int = 256
    num_layers: int = 4
    num_labels: int = 2
    per_device_batch_size: int = 32
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.06
    num_epochs: int = 3
    max_grad_norm: float = 1.0
    save_every: int = 1000
    seed: int = 13

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})
