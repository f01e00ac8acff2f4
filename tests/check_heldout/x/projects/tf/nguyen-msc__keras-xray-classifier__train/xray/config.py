import argparse


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="chest x-ray classifier")
    p.add_argument("--data", default="data/chest_xray")
    p.add_argument("--out", default="outputs")
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--img-size", type=int, default=224)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--patience", type=int, default=6)
    p.add_argument("--seed", type=int, default=2023)
    return p.parse_args(argv)
