from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "data/tokenized"
    out_dir: str = "checkpoints"
    vocab_size: int = 8000
    max_len: int = 128
    d_model: int = 256
    n_layers: int = 4
    n_heads: int = 4
    # phase 1: in-domain masked-LM pretraining on the unlabeled comments
    pretrain_epochs: int = 3
    pretrain_lr: float = 5e-4
    # phase 2: toxicity classification
    finetune_epochs: int = 4
    finetune_lr: float = 3e-5
    batch_size: int = 32            # per GPU, per micro-batch
    accum_steps: int = 4            # effective batch 128 per GPU (16GB cards)
    weight_decay: float = 0.01
    mask_prob: float = 0.15
    seed: int = 42
