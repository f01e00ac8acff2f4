from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "data/coco_feats"
    ckpt_dir: str = "checkpoints"
    epochs: int = 12
    batch_size: int = 64        # per worker; the contrastive batch is per worker as well
    lr: float = 1e-3            # reference lr for one worker
    warmup_epochs: int = 2
    embed_dim: int = 256
    max_tokens: int = 20000
    seq_len: int = 32
