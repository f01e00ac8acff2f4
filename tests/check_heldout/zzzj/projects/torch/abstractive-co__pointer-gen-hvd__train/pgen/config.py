from dataclasses import dataclass, field


@dataclass
class Config:
    train_path: str = "data/cnndm/train.tsv"
    val_path: str = "data/cnndm/val.tsv"
    vocab_path: str = "data/cnndm/vocab.txt"
    vocab_size: int = 50000
    max_src_len: int = 400
    max_tgt_len: int = 100
    max_tokens: int = 8000
    hidden: int = 256
    emb: int = 128
    lr: float = 0.15
    epochs: int = 12
    beam_size: int = 4
    seed: int = 7
    ckpt_dir: str = "ckpt/pgen"
    extra: dict = field(default_factory=dict)
