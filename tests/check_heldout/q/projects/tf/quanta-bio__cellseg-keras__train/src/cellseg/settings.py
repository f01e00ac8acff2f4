import argparse
from dataclasses import dataclass


@dataclass
class Settings:
    train_npz: str = "/lab/imaging/nuclei/train.npz"
    val_npz: str = "/lab/imaging/nuclei/val.npz"
    out_dir: str = "runs/cellseg"
    base_filters: int = 16
    batch_size: int = 16          # per GPU
    lr: float = 5e-4              # single-GPU Adam lr
    warmup_epochs: int = 5
    epochs: int = 80

    @staticmethod
    def from_cli():
        s = Settings()
        ap = argparse.ArgumentParser()
        for k, v in vars(s).items():
            ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
        return Settings(**vars(ap.parse_args()))
