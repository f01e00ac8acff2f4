from dataclasses import dataclass, field
from typing import List


@dataclass
class ExpConfig:
    exp_dir: str = "exp/conformer_lite"
    feats_dir: str = "dump/fbank"
    n_mels: int = 80
    vocab_size: int = 32          # chars + blank
    hidden: int = 256
    layers: int = 3
    batch_size: int = 16          # utterances per GPU
    accum_grad: int = 4
    epochs: int = 50
    peak_lr: float = 1e-3         # tuned for 8 GPUs x 16 x 4
    ref_world_size: int = 8
    warmup_steps: int = 2000
    keep_ckpt: int = 3
    spec_aug: bool = True
    milestones: List[int] = field(default_factory=lambda: [30, 40])
