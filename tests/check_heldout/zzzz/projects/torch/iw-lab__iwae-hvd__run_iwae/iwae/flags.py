import argparse


def get_args(argv=None):
    p = argparse.ArgumentParser("IWAE / VAE on binarized MNIST (horovod)")
    p.add_argument("--data", default="./data/bmnist.npz")
    p.add_argument("--model", choices=["vae", "iwae"], default="iwae")
    p.add_argument("--k", type=int, default=5, help="importance samples for training bound")
    p.add_argument("--k-eval", type=int, default=5000)
    p.add_argument("--layers", type=int, default=1, choices=[1, 2])
    p.add_argument("--batch-size", type=int, default=20)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--passes", type=int, default=3280, help="Burda schedule: sum_i 3^i passes")
    p.add_argument("--stages", type=int, default=8)
    p.add_argument("--eval-n", type=int, default=1000, help="test images used for the k-eval LL")
    p.add_argument("--outdir", default="./out")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)
