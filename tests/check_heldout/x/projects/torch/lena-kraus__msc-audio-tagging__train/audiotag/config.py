import argparse


def get_args(argv=None):
    p = argparse.ArgumentParser("audio tagging (Horovod)")
    p.add_argument("--data", default="features/fsd_mini")
    p.add_argument("--runs", default="runs")
    p.add_argument("--name", default="cnn6")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="single-worker lr, scaled by hvd.size() in train.py")
    p.add_argument("--wd", type=float, default=0.0)
    p.add_argument("--n-mels", type=int, default=64)
    p.add_argument("--n-classes", type=int, default=41)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resume", default="auto",
                   help="'auto': <runs>/<name>/last.pt if it exists; a path; or '' to start fresh")
    return p.parse_args(argv)
