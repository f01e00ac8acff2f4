from dataclasses import dataclass

import horovod.torch as hvd


@dataclass
class Config:
    data_root: str
    epochs: int
    batch_size: int
    base_lr: float
    out: str
    resume: str = ""
    num_workers: int = 5

    @property
    def lr(self):
        # linear scaling rule: lr x number of GPUs
        return self.base_lr * hvd.local_size()

    @classmethod
    def from_namespace(cls, ns):
        return cls(data_root=ns.data_root, epochs=ns.epochs, batch_size=ns.batch_size,
                   base_lr=ns.base_lr, out=ns.out, resume=ns.resume)
