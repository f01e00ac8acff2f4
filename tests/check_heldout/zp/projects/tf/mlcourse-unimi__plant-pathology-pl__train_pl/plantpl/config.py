from dataclasses import dataclass, asdict

import horovod.tensorflow as hvd


@dataclass
class Config:
    data_dir: str = "data/plant-pathology-2021"
    img_size: int = 224
    n_classes: int = 6
    batch_size: int = 32                 # per worker
    world_size: int = hvd.size()
    lr: float = 1e-3
    epochs_teacher: int = 8
    epochs_student: int = 8
    pl_threshold: float = 0.85
    ckpt_dir: str = "ckpt"
    seed: int = 2021

    @property
    def global_batch(self):
        return self.batch_size * self.world_size

    def to_dict(self):
        return asdict(self)
