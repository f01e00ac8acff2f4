from dataclasses import dataclass


@dataclass
class TrainConfig:
    vocab_size: int = 1000
    seq_len: int = 32
    n_classes: int = 3
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    n_train: int = 1024
    n_val: int = 256
    batch_size: int = 32
    epochs: int = 5
    lr: float = 3e-4
    scale_lr: bool = True
    warmup_steps: int = 100
    fp16_allreduce: bool = False
    workers: int = 0
    output_dir: str = "runs/clickformer"
    resume: str = ""
    seed: int = 42
