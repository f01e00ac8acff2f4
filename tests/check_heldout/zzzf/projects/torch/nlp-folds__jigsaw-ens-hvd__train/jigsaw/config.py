from dataclasses import dataclass


@dataclass
class TrainConfig:
    lr: float = 2e-3
    weight_decay: float = 0.01
    epochs: int = 4
    batch_size: int = 64
    max_len: int = 192
    vocab_size: int = 2 ** 18
    emb_dim: int = 128
    warmup_ratio: float = 0.06
    fp16: bool = False
    distributed: bool = False
    seed: int = 42
