import argparse
from dataclasses import asdict, dataclass


@dataclass
class ExpConfig:
    data_dir: str = "/data/flowers102/tfrecords"
    image_size: int = 192
    num_classes: int = 102
    batch_size: int = 48           # per worker
    lr: float = 1e-3               # per worker
    epochs: int = 60
    restart_steps: int = 2000
    mixup_alpha: float = 0.2
    out: str = "results"


def parse():
    d = ExpConfig()
    ap = argparse.ArgumentParser()
    for k, v in asdict(d).items():
        ap.add_argument(f"--{k}", type=type(v), default=v)
    return ExpConfig(**vars(ap.parse_args()))
