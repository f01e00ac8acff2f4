import argparse
from dataclasses import dataclass, fields


@dataclass
class Config:
    data_dir: str = "/cluster/work/cvl/roads/tiles256"
    img_size: int = 256
    global_batch: int = 32      # total over all workers; lr below was tuned for this batch
    lr: float = 3e-4
    epochs: int = 60
    base_filters: int = 24
    pos_weight: float = 3.0     # roads are ~8% of pixels
    ckpt_dir: str = "checkpoints/roadseg"
    keep_ckpts: int = 3
    seed: int = 7


def parse_config(argv=None):
    ap = argparse.ArgumentParser()
    for f in fields(Config):
        ap.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=f.type, default=f.default)
    return Config(**vars(ap.parse_args(argv)))
