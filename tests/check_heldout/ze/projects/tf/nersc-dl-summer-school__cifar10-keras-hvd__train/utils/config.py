from dataclasses import dataclass

import keras


@dataclass
class Config:
    name: str
    batch_size: int = 64            # per rank
    epochs: int = 30
    base_lr: float = 0.05
    warmup_epochs: int = 3
    width: int = 32
    data_dir: str = "/global/cfs/cdirs/dasrepo/school/cifar10"
    ckpt_dir: str = "ckpt"

    def make_optimizer(self, scale=1):
        return keras.optimizers.SGD(learning_rate=self.base_lr * scale, momentum=0.9)


CONFIGS = {
    "small": Config("small"),
    "wide": Config("wide", width=64, epochs=60),
    "debug": Config("debug", epochs=2, batch_size=16),
}
