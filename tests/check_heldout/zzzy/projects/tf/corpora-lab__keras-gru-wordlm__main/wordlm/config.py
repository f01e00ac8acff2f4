from dataclasses import dataclass
from typing import Optional


@dataclass
class LMConfig:
    train_path: str
    valid_path: str
    vocab_size: int = 30000
    seq_len: int = 35
    batch_size: int = 32          # per worker
    units: int = 512
    emb_dim: int = 256
    learning_rate: float = 1e-3
    clipnorm: float = 0.25
    epochs: int = 10
    max_steps: Optional[int] = None
    out_dir: str = 'runs/lm'
