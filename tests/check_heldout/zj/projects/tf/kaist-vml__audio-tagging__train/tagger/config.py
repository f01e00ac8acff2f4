from dataclasses import dataclass, field

import horovod.tensorflow as hvd


@dataclass
class TrainConfig:
    data_dir: str = "features/fsd50k_logmel"
    n_mels: int = 64
    frames: int = 256
    num_tags: int = 200
    batch_size: int = 32                 # per worker
    base_lr: float = 1e-3                # for one worker
    epochs: int = 40
    warmup_steps: int = 500
    log_every: int = 50
    ckpt_dir: str = "checkpoints/fsd50k"
    world_size: int = hvd.size()
    mixup_alpha: float = 0.2
    tags: list = field(default_factory=list)

    @property
    def lr(self):
        return self.base_lr * self.world_size
