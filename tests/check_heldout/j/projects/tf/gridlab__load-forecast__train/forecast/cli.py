"""Command line: ``horovodrun -np 4 load-forecast train --data data/ercot_hourly.npz``."""
import argparse
import sys


def build_parser():
    parser = argparse.ArgumentParser(prog="load-forecast")
    sub = parser.add_subparsers(dest="command", required=True)

    tr = sub.add_parser("train", help="train the multi-horizon LSTM")
    tr.add_argument("--data", default="data/ercot_hourly.npz")
    tr.add_argument("--history", type=int, default=168, help="hours of input")
    tr.add_argument("--horizon", type=int, default=24, help="hours to predict")
    tr.add_argument("--holdout-days", type=int, default=365)
    tr.add_argument("--epochs", type=int, default=40)
    tr.add_argument("--batch-size", type=int, default=256)
    tr.add_argument("--lr", type=float, default=1e-3)
    tr.add_argument("--warmup-epochs", type=int, default=3)
    tr.add_argument("--units", type=int, default=128)
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--out", default="models/lstm")

    ev = sub.add_parser("evaluate", help="score a saved model on the hold-out year")
    ev.add_argument("--data", default="data/ercot_hourly.npz")
    ev.add_argument("--model", required=True)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.command == "train":
        from forecast import train
        return train.main(args)
    from forecast import evaluate_saved
    return evaluate_saved.main(args)


if __name__ == "__main__":
    sys.exit(main())
