import argparse


def get_parser():
    p = argparse.ArgumentParser(description="Galaxy morphology classifier (Horovod, custom loop)")
    p.add_argument("--data", default="data/galaxy10_64.npz")
    p.add_argument("--batch-size", type=int, default=64, help="per worker")
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--recompute", action="store_true", help="activation checkpointing of the conv stages")
    p.add_argument("--ckpt-dir", default="checkpoints/galaxy")
    p.add_argument("--save-every", type=int, default=1)
    p.add_argument("--seed", type=int, default=2024)
    return p
