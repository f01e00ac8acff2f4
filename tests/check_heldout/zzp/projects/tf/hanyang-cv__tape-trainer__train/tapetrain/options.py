import argparse
import json


def get_options():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default="configs/cifar100.json")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch_size", type=int, help="per process")
    ap.add_argument("--base_lr", type=float, help="single-process learning rate")
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    with open(args.cfg) as f:
        opts = json.load(f)
    opts.update({k: v for k, v in vars(args).items() if v is not None and k != "cfg"})
    return argparse.Namespace(**opts)
