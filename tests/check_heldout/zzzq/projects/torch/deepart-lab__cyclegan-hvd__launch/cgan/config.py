import argparse
from dataclasses import dataclass


@dataclass
class TrainConfig:
    root_a: str = "datasets/horse2zebra/trainA"
    root_b: str = "datasets/horse2zebra/trainB"
    size: int = 128
    batch_size: int = 1
    epochs: int = 100
    decay_epoch: int = 50
    lr: float = 2e-4
    lambda_cyc: float = 10.0
    lambda_id: float = 5.0
    pool_size: int = 50
    num_proc: int = 4
    hosts: str = None
    out_dir: str = "output/cyclegan"
    log_every: int = 100


def parse_args(argv=None) -> TrainConfig:
    d = TrainConfig()
    ap = argparse.ArgumentParser("CycleGAN, horovod")
    ap.add_argument("--root-a", dest="root_a", default=d.root_a)
    ap.add_argument("--root-b", dest="root_b", default=d.root_b)
    ap.add_argument("--size", type=int, default=d.size)
    ap.add_argument("--batch-size", dest="batch_size", type=int, default=d.batch_size)
    ap.add_argument("--epochs", type=int, default=d.epochs)
    ap.add_argument("--decay-epoch", dest="decay_epoch", type=int, default=d.decay_epoch)
    ap.add_argument("--lr", type=float, default=d.lr)
    ap.add_argument("-np", "--num-proc", dest="num_proc", type=int, default=d.num_proc)
    ap.add_argument("-H", "--hosts", default=d.hosts)
    ap.add_argument("--out-dir", dest="out_dir", default=d.out_dir)
    ns = ap.parse_args(argv)
    return TrainConfig(**{k: getattr(ns, k, getattr(d, k)) for k in d.__dataclass_fields__})
