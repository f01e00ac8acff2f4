"""Hyper-parameters of the two-stage fine-tuning recipe (edit here, not on the command line)."""
from dataclasses import dataclass

import horovod.tensorflow.keras as hvd


@dataclass
class HParams:
    image_size: int = 256
    num_classes: int = 21
    batch_size: int = 16                      # per worker
    head_epochs: int = 10
    finetune_epochs: int = 30
    head_lr: float = 1e-3 * hvd.size()        # linear scaling rule
    finetune_lr: float = 1e-4 * hvd.size()
    warmup_epochs: int = 2
    backbone_weights: str = "imagenet"
    out_dir: str = "runs/seg"
