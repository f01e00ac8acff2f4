"""Default hyper-parameters. Override any field from the command line: --epochs 16 --arch resnet18"""
from dataclasses import dataclass

import horovod.torch as hvd


@dataclass
class Config:
    data: str = '/datasets/imagenet'
    arch: str = 'resnet50'
    epochs: int = 32
    batch_size: int = 192              # per GPU
    workers: int = 8
    # linear scaling rule: 0.1 per 256 images, scaled by the number of workers
    lr: float = 0.1 * (192 / 256) * hvd.size()
    warmup_epochs: int = 2
    momentum: float = 0.9
    weight_decay: float = 5e-5
    label_smoothing: float = 0.1
    amp: bool = True
    fp16_allreduce: bool = True
    out: str = './runs/r50'
    print_freq: int = 50
