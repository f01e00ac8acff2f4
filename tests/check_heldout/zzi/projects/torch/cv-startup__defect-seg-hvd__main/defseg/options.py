import argparse
import os


def get_options(argv=None):
    p = argparse.ArgumentParser("defect segmentation")
    p.add_argument("--data", default="/mnt/data/defects")
    p.add_argument("--img-size", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=8, help="per GPU")
    p.add_argument("--lr-encoder", type=float, default=1e-4)
    p.add_argument("--lr-decoder", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="work_dirs/defseg")
    p.add_argument("--local-rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)),
                   help="GPU index on this node (set by the launcher)")
    opts = p.parse_args(argv)
    opts.lr_scale = 1.0
    return opts
