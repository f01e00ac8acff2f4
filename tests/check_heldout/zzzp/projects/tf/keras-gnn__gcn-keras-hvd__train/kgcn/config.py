import argparse


def parse():
    ap = argparse.ArgumentParser("keras GCN, horovod")
    ap.add_argument("--dataset", default="citeseer")
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--nodes", type=int, default=3327)
    ap.add_argument("--features", type=int, default=3703)
    ap.add_argument("--classes", type=int, default=6)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--dropout", type=float, default=0.5)
    ap.add_argument("--l2", type=float, default=5e-4)
    ap.add_argument("--learning-rate", type=float, default=0.01)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--patience", type=int, default=20)
    ap.add_argument("--ckpt", default="weights/gcn_{epoch:03d}.weights.h5")
    ap.add_argument("--log-csv", default="logs/gcn.csv")
    return ap.parse_args()
