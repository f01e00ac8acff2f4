import argparse
import os
from dataclasses import dataclass

import torch


@dataclass
class MILConfig:
    feature_dir: str = "/scratch/wsi/features/ctranspath"
    split_file: str = "/scratch/wsi/splits/camelyon16_fold0.csv"
    out_dir: str = "/scratch/wsi/runs/mil"
    feat_dim: int = 768
    hidden: int = 256
    n_classes: int = 2
    bag_size: int = 512
    global_batch: int = 32       # slides per optimizer step, over all GPUs
    lr: float = 2e-4             # tuned for global_batch=32; do not rescale
    weight_decay: float = 1e-5
    epochs: int = 40
    patience: int = 8
    seed: int = 2023
    use_cuda: bool = True

    @classmethod
    def from_env(cls, argv=()):
        cfg = cls()
        for name, typ in (("feature_dir", str), ("split_file", str), ("out_dir", str), ("epochs", int),
                          ("global_batch", int), ("lr", float), ("bag_size", int)):
            val = os.environ.get("MIL_" + name.upper())
            if val is not None:
                setattr(cfg, name, typ(val))
        p = argparse.ArgumentParser()
        p.add_argument("--epochs", type=int)
        p.add_argument("--out-dir")
        ns = p.parse_args(list(argv))
        if ns.epochs is not None:
            cfg.epochs = ns.epochs
        if ns.out_dir:
            cfg.out_dir = ns.out_dir
        return cfg

    def device(self, local_rank):
        if self.use_cuda and torch.cuda.is_available():
            torch.cuda.set_device(local_rank)
            return torch.device("cuda", local_rank)
        return torch.device("cpu")
