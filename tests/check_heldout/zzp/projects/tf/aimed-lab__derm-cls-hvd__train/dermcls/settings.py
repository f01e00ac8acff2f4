import argparse
from dataclasses import dataclass, fields


@dataclass
class Settings:
    data_dir: str = "/data/isic2019/split"
    image_size: int = 224
    num_classes: int = 8
    batch_size: int = 32         # images per worker
    epochs: int = 40
    lr: float = 3e-4             # single-worker Adam lr
    warmup_epochs: int = 3
    ema_momentum: float = 0.999
    seed: int = 2024
    workdir: str = "work_dirs"

    @classmethod
    def from_cli(cls):
        p = argparse.ArgumentParser(description="ISIC skin-lesion classifier")
        for f in fields(cls):
            p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(f.default), default=f.default)
        return cls(**vars(p.parse_args()))
