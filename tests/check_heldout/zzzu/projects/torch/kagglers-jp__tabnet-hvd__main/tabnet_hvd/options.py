import argparse


def get_parser():
    parser = argparse.ArgumentParser(description="TabNet (horovod)")
    parser.add_argument("--train-csv", type=str, default="input/train.csv")
    parser.add_argument("--target", type=str, default="target")
    parser.add_argument("--cat-cols", type=str, default="", help="comma separated")
    parser.add_argument("--n-d", type=int, default=16)
    parser.add_argument("--n-a", type=int, default=16)
    parser.add_argument("--n-steps", type=int, default=4)
    parser.add_argument("--gamma", type=float, default=1.3)
    parser.add_argument("--emb-dim", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--virtual-batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-2)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--patience", type=int, default=10)
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--n-folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--output-dir", type=str, default="output")
    parser.add_argument("--save-importance", action="store_true")
    return parser
