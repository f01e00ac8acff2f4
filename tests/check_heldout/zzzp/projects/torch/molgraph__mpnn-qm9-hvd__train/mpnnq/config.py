import argparse
from dataclasses import dataclass, fields


@dataclass
class Config:
    data_path: str = "data/qm9_graphs.pt"
    target: int = 7            # U0
    n_graphs: int = 130831
    hidden: int = 128
    n_layers: int = 3
    batch_size: int = 64
    lr: float = 1e-3
    epochs: int = 300
    val_frac: float = 0.1
    out_dir: str = "runs/mpnn"
    seed: int = 0
    workers: int = 2

    @classmethod
    def from_cli(cls, argv=None):
        p = argparse.ArgumentParser()
        for f in fields(cls):
            p.add_argument("--" + f.name.replace("_", "-"), type=f.type if f.type != "bool" else int,
                           default=f.default)
        ns = p.parse_args(argv)
        return cls(**vars(ns))
