from dataclasses import dataclass

import horovod.tensorflow as hvd


@dataclass
class Config:
    data_dir: str = 'data/flower_photos'
    image_size: int = 192
    batch_size: int = 32            # per replica
    epochs: int = 15
    base_lr: float = 3e-4           # for one replica
    warmup_steps: int = 300
    val_fraction: float = 0.15
    seed: int = 1337
    ckpt_dir: str = 'checkpoints'

    def __post_init__(self):
        # computed once Horovod is up (the Config is built after init_horovod())
        self.peak_lr = self.base_lr * hvd.size()
