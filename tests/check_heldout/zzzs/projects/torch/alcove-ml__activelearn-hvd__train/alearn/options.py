import argparse


def get_parser():
    p = argparse.ArgumentParser("active learning (horovod)")
    p.add_argument("--data", default="data/pool.npz", help="npz with x_train/y_train/x_test/y_test")
    p.add_argument("--out", default="runs/al")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--init-labeled", type=int, default=200)
    p.add_argument("--query-size", type=int, default=100)
    p.add_argument("--strategy", default="entropy", choices=["entropy", "margin", "random"])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05, help="lr for one worker, scaled by hvd.size()")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--warm-start", action="store_true", help="keep weights between rounds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-cuda", action="store_true")
    return p
