import argparse


def build_parser():
    p = argparse.ArgumentParser("seaice-unet")
    p.add_argument("--data", default="/lustre/polar/seaice_25km.h5")
    p.add_argument("--train-years", default="1990-2014")
    p.add_argument("--valid-years", default="2015-2018")
    p.add_argument("--history", type=int, default=3, help="days of SIC fed to the model")
    p.add_argument("--lead", type=int, default=6, help="autoregressive rollout length (days)")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--base-ch", type=int, default=32)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="runs/seaice")
    p.add_argument("--resume", default="")
    p.add_argument("--fp16-allreduce", action="store_true")
    return p


def parse(argv=None):
    args = build_parser().parse_args(argv)
    a, b = args.train_years.split("-")
    args.train_years = (int(a), int(b))
    a, b = args.valid_years.split("-")
    args.valid_years = (int(a), int(b))
    return args
