from dataclasses import dataclass, field
from typing import List


@dataclass
class TrainConfig:
    train_csv: str = "data/train_folds.csv"
    fold: int = 0
    max_len: int = 256
    vocab_size: int = 50000
    emb_dim: int = 128
    hidden: List[int] = field(default_factory=lambda: [256, 64])
    batch_size: int = 16          # per device
    grad_accum: int = 1
    lr: float = 2e-5 * 50         # bag-of-words baseline wants a higher lr than roberta
    weight_decay: float = 0.01
    warmup_ratio: float = 0.06
    epochs: int = 5
    eval_every: int = 50          # steps
    seed: int = 42
    output_dir: str = "checkpoints/bow-baseline"
