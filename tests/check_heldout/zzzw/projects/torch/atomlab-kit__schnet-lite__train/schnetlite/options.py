import argparse


def get_parser():
    p = argparse.ArgumentParser(description="SchNet-lite energy/force training (horovod)")
    p.add_argument("--train-file", default="data/train.npz")
    p.add_argument("--val-file", default="data/val.npz")
    p.add_argument("--out-dir", default="runs/schnet")
    p.add_argument("--batch-size", type=int, default=16, help="molecules per rank")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--no-lr-scaling", dest="scale_lr", action="store_false")
    p.add_argument("--warmup-epochs", type=int, default=2)
    p.add_argument("--cutoff", type=float, default=5.0)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--n-rbf", type=int, default=25)
    p.add_argument("--n-interactions", type=int, default=3)
    p.add_argument("--energy-weight", type=float, default=0.05)
    p.add_argument("--force-weight", type=float, default=0.95)
    p.add_argument("--ema-decay", type=float, default=0.995)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--save-every", type=int, default=5)
    p.add_argument("--num-workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--no-cuda", action="store_true")
    return p
