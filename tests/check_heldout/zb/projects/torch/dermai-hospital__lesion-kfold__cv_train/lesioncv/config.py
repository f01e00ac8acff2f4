from dataclasses import dataclass, asdict

import yaml


@dataclass
class CVConfig:
    image_npz: str = "/data/derm/isic2019_224.npz"
    out_dir: str = "/data/derm/runs/cv"
    n_folds: int = 5
    n_classes: int = 8
    epochs: int = 25
    batch_size: int = 32        # per worker
    lr: float = 1e-3            # single-worker value, scaled by the number of workers in train_fold
    seed: int = 17

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(**(yaml.safe_load(f) or {}))

    def as_dict(self):
        return asdict(self)
