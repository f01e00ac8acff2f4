import argparse


def get_parser():
    p = argparse.ArgumentParser(description="VAE w/ KL warmup (horovod)")
    p.add_argument("--data-dir", default="./data/binarized_mnist")
    p.add_argument("--out-dir", default="./runs/vae")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="base lr for a single worker")
    p.add_argument("--no-scale-lr", action="store_true", help="don't multiply lr by world size")
    p.add_argument("--z-dim", type=int, default=32)
    p.add_argument("--hidden", type=int, default=512)
    # KL annealing
    p.add_argument("--anneal", choices=["linear", "cyclical", "none"], default="linear")
    p.add_argument("--warmup-steps", type=int, default=10000)
    p.add_argument("--n-cycles", type=int, default=4)
    p.add_argument("--beta-max", type=float, default=1.0)
    p.add_argument("--save-every", type=int, default=5)
    p.add_argument("--resume", default="")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--num-workers", type=int, default=2)
    p.add_argument("--fp16-allreduce", action="store_true")
    return p


def parse_args(argv=None):
    return get_parser().parse_args(argv)
