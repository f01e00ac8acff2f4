import argparse


def get_parser():
    p = argparse.ArgumentParser("tilecls training")
    p.add_argument("--data-root", default="/mnt/datasets/eurosat-tiles")
    p.add_argument("--output", default="checkpoints/tilecls")
    p.add_argument("--arch", default="tilenet_s", choices=["tilenet_s", "tilenet_m"])
    p.add_argument("--num-classes", type=int, default=10)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=32, help="micro-batch per GPU")
    p.add_argument("--accum-steps", type=int, default=4, help="micro-batches per optimizer step")
    p.add_argument("--base-lr", type=float, default=0.05, help="lr for one GPU at batch-size x accum-steps")
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-interval", type=int, default=20)
    return p
