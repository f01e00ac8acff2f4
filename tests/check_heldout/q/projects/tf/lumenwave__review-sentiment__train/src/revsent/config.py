import argparse
from dataclasses import asdict, dataclass


@dataclass
class RunConfig:
    train_path: str = "gs://lw-ml-data/reviews/train_tok.npz"
    test_path: str = "gs://lw-ml-data/reviews/test_tok.npz"
    out_dir: str = "artifacts/revsent"
    vocab_size: int = 30000
    embed_dim: int = 128
    batch_size: int = 128
    lr: float = 2e-3
    weight_decay: float = 1e-4
    epochs: int = 6
    seed: int = 11

    @classmethod
    def parse(cls):
        ap = argparse.ArgumentParser()
        for k, v in asdict(cls()).items():
            ap.add_argument(f"--{k}", type=type(v), default=v)
        return cls(**vars(ap.parse_args()))
