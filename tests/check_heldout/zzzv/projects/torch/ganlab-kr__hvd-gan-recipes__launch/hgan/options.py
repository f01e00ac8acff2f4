import argparse


def build_parser():
    p = argparse.ArgumentParser("hvd-gan-recipes")
    p.add_argument("--num-proc", type=int, default=2)
    p.add_argument("--hosts", default=None)
    p.add_argument("--z-dim", type=int, default=64)
    p.add_argument("--img-dim", type=int, default=28 * 28)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--g-lr", type=float, default=2e-4)
    p.add_argument("--d-lr", type=float, default=2e-4)
    p.add_argument("--scale-lr", type=int, default=1, help="multiply lrs by the number of workers")
    p.add_argument("--n-critic", type=int, default=1)
    p.add_argument("--n-samples", type=int, default=2048)
    p.add_argument("--out-dir", default="./gan_out")
    p.add_argument("--save-every", type=int, default=500)
    return p
