import argparse


def parse_opts(argv=None):
    p = argparse.ArgumentParser("cxr classifier")
    p.add_argument("--data-root", default="/data/cxr14")
    p.add_argument("--img-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--base-lr", type=float, default=0.0125)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--n-classes", type=int, default=14)
    p.add_argument("--out-dir", default="output")
    p.add_argument("--save-rank0-only", action="store_true",
                   help="only rank 0 writes checkpoints (off: every worker writes, like in the notebook)")
    p.add_argument("--dummy", action="store_true", help="random tensors instead of images")
    return p.parse_args(argv)
