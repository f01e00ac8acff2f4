import argparse


def build(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/svhn32.npz")
    p.add_argument("--num-proc", type=int, default=0, help=">0: spawn workers with horovod.run; 0: already under horovodrun")
    p.add_argument("--steps", type=int, default=50000)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--sqrt-lr-scaling", type=int, default=1)
    p.add_argument("--couplings", type=int, default=6)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--eval-every", type=int, default=1000)
    p.add_argument("--workdir", default="work/realnvp")
    return p.parse_args(argv)
