import argparse


def get_opts(argv=None):
    ap = argparse.ArgumentParser("margin-AL (tf2)")
    ap.add_argument("--data", default="data/svhn_feats.npz")
    ap.add_argument("--out", default="runs/margin")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--n_start", type=int, default=1000)
    ap.add_argument("--query", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch_size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--hvd_tape", action="store_true",
                    help="average gradients with hvd.DistributedGradientTape")
    return ap.parse_args(argv)
