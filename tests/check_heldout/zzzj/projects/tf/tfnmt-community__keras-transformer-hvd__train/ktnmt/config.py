from dataclasses import dataclass


@dataclass
class TrainConfig:
    train_src: str = "data/train.src"
    train_tgt: str = "data/train.tgt"
    dev_src: str = "data/dev.src"
    dev_tgt: str = "data/dev.tgt"
    vocab_file: str = "data/vocab.txt"
    vocab_size: int = 16000
    max_len: int = 64
    max_tokens: int = 4096
    num_train_examples: int = 200000
    d_model: int = 256
    peak_lr: float = 7e-4
    warmup_updates: int = 4000
    label_smoothing: float = 0.1
    epochs: int = 20
    out_dir: str = "runs/ktnmt"
