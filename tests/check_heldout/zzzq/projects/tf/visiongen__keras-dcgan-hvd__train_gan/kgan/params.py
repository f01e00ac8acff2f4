import argparse
from dataclasses import dataclass, asdict


@dataclass
class Params:
    data_dir: str = "gs://visiongen-data/flowers64"
    image_size: int = 64
    latent_dim: int = 100
    batch_size: int = 64
    epochs: int = 30
    gen_lr: float = 1e-4
    disc_lr: float = 4e-4
    label_smoothing: float = 0.1
    output_dir: str = "artifacts"
    n_samples: int = 16
    synthetic: bool = False

    def to_dict(self):
        return asdict(self)


def parse(argv=None) -> Params:
    p = Params()
    ap = argparse.ArgumentParser()
    for k, v in p.to_dict().items():
        if isinstance(v, bool):
            ap.add_argument("--" + k.replace("_", "-"), dest=k, action="store_true")
        else:
            ap.add_argument("--" + k.replace("_", "-"), dest=k, type=type(v), default=v)
    return Params(**vars(ap.parse_args(argv)))
