import argparse


def get_parser():
    p = argparse.ArgumentParser("nmt-amp")
    p.add_argument("--data", default="data-bin/wmt14_en_de")
    p.add_argument("--max-tokens", type=int, default=5120)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup-updates", type=int, default=4000)
    p.add_argument("--max-update", type=int, default=100000)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--clip-norm", type=float, default=0.0)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--save-dir", default="checkpoints/amp")
    p.add_argument("--save-interval-updates", type=int, default=2000)
    p.add_argument("--log-interval", type=int, default=100)
    p.add_argument("--seed", type=int, default=2)
    return p
