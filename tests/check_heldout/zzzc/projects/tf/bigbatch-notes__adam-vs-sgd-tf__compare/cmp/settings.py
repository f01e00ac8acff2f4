import argparse
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    optimizers: tuple
    lr_sgd: float
    lr_adam: float
    global_batch: int
    epochs: int
    save_every: int
    out: str
    resume: str


def from_cli(argv=None):
    ap = argparse.ArgumentParser(description="Adam vs SGD at a fixed global batch")
    ap.add_argument("--optimizers", default="sgd,adam")
    ap.add_argument("--lr-sgd", type=float, default=0.4, help="lr for the whole global batch")
    ap.add_argument("--lr-adam", type=float, default=2e-3, help="lr for the whole global batch")
    ap.add_argument("--global-batch", type=int, default=2048)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--save-every", type=int, default=2)
    ap.add_argument("--out", default="cmp_out")
    ap.add_argument("--resume", default="", help="weights file to start from")
    a = ap.parse_args(argv)
    return Settings(tuple(a.optimizers.split(",")), a.lr_sgd, a.lr_adam, a.global_batch,
                    a.epochs, a.save_every, a.out, a.resume)
