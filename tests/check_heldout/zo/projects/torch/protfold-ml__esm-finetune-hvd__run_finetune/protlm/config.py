import argparse
import dataclasses
from dataclasses import dataclass


@dataclass
class FinetuneConfig:
    fasta: str = "data/deeploc/deeploc_data.fasta"
    pretrained: str = ""
    n_folds: int = 5
    fold: int = 0
    seed: int = 13
    dim: int = 320
    layers: int = 6
    batch_size: int = 32
    lr: float = 1e-4
    weight_decay: float = 0.05
    epochs: int = 20
    focal_gamma: float = 2.0
    amp: bool = True
    clip: float = 1.0
    out_dir: str = "runs/deeploc"


def parse_config(argv=None):
    """Expose every dataclass field as `--name` on the command line."""
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(FinetuneConfig):
        if f.type is bool or f.type == "bool":
            parser.add_argument(f"--{f.name}", type=lambda s: s.lower() in ("1", "true", "yes"), default=f.default)
        else:
            parser.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    return FinetuneConfig(**vars(parser.parse_args(argv)))
