import argparse

MODELS = ("mlp", "resnet")


def build_parser():
    p = argparse.ArgumentParser("tab-mlp-baselines")
    p.add_argument("--csv", required=True)
    p.add_argument("--target", default="y")
    p.add_argument("--task", choices=["regression", "binary"], default="regression")
    p.add_argument("--model", choices=MODELS, default="mlp")
    p.add_argument("--hidden", type=int, nargs="+", default=[512, 256, 128])
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--out", default="results")
    p.add_argument("-np", "--num-proc", dest="num_proc", type=int, default=2)
    p.add_argument("--hosts", default=None, help="e.g. host1:4,host2:4")
    return p
