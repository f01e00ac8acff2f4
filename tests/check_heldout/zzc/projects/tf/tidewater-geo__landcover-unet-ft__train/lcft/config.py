import argparse
from dataclasses import dataclass, field, fields

import horovod.tensorflow.keras as hvd


@dataclass
class Config:
    data_dir: str = "/lustre/landcover/tiles"
    encoder_weights: str = "weights/mobilenet_v2_1.0_224_no_top.h5"
    num_classes: int = 7
    tile: int = 256
    batch_size: int = 8                 # per GPU
    # linear scaling rule: 5e-4 for one GPU
    lr: float = field(default_factory=lambda: 5e-4 * hvd.size())
    stage_a_epochs: int = 10
    stage_b_epochs: int = 30
    stage_b_lr_mult: float = 0.1
    ckpt_dir: str = "checkpoints"
    export_dir: str = "export"

    @classmethod
    def from_cli(cls):
        defaults = cls()
        ap = argparse.ArgumentParser()
        for f in fields(cls):
            value = getattr(defaults, f.name)
            ap.add_argument("--" + f.name.replace("_", "-"), type=type(value), default=value)
        return cls(**vars(ap.parse_args()))
