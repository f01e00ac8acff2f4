import argparse


def get_options():
    p = argparse.ArgumentParser(description="MPNN for ESOL / FreeSolv / Lipo (horovod)")
    p.add_argument("--dataset", default="esol", choices=["esol", "freesolv", "lipo"])
    p.add_argument("--data-dir", default="data")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--steps", type=int, default=3, help="message passing steps")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=150)
    p.add_argument("--val-frac", type=float, default=0.1)
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--seed", type=int, default=17)
    return p.parse_args()
