import argparse
from dataclasses import dataclass, field, fields

import horovod.tensorflow as hvd


@dataclass
class Config:
    data_dir: str = "data/lofi_16k"
    ckpt_dir: str = "checkpoints/wavenet"
    global_batch: int = 32
    segment: int = 12000
    quant: int = 256
    blocks: int = 3
    layers_per_block: int = 10
    residual_channels: int = 64
    skip_channels: int = 128
    lr: float = 1e-3
    steps: int = 300000
    eval_every: int = 2000
    eval_batches: int = 20
    ckpt_every: int = 5000
    distributed: bool = False
    fp16_allreduce: bool = False
    batch_per_replica: int = field(init=False)

    def __post_init__(self):
        self.batch_per_replica = max(1, self.global_batch // hvd.size())

    @classmethod
    def from_args(cls, argv=None):
        parser = argparse.ArgumentParser(description="WaveNet on lo-fi hip hop stems")
        for f in fields(cls):
            if not f.init:
                continue
            if f.type is bool or isinstance(f.default, bool):
                parser.add_argument("--" + f.name, action="store_true")
            else:
                parser.add_argument("--" + f.name, type=type(f.default), default=f.default)
        return cls(**vars(parser.parse_args(argv)))
