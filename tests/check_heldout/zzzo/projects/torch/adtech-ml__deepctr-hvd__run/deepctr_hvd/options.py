import argparse
from dataclasses import dataclass, field, asdict
from typing import List


@dataclass
class TrainOptions:
    train_glob: str = "/datasets/ctr/train/day=*/part-*.npz"
    valid_glob: str = "/datasets/ctr/valid/part-*.npz"
    field_sizes: List[int] = field(default_factory=lambda: [100000] * 24)
    embed_dim: int = 16
    hidden: List[int] = field(default_factory=lambda: [256, 128])
    batch_size: int = 2048
    lr: float = 0.001
    sparse_lr: float = 0.01
    epochs: int = 3
    num_proc: int = 2
    hosts: str = ""
    ckpt_dir: str = "/shared/ckpt/deepctr"
    emb_shards: int = 4
    use_cuda: bool = True


def parse(argv=None) -> TrainOptions:
    d = TrainOptions()
    ap = argparse.ArgumentParser()
    for k, v in asdict(d).items():
        if isinstance(v, bool):
            ap.add_argument("--" + k, type=lambda s: s.lower() in ("1", "true", "yes"), default=v)
        elif isinstance(v, list):
            ap.add_argument("--" + k, type=int, nargs="+", default=v)
        else:
            ap.add_argument("--" + k, type=type(v), default=v)
    return TrainOptions(**vars(ap.parse_args(argv)))
