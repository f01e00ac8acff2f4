"""Config: defaults < yaml file < command line."""
import argparse
import os

try:
    import yaml
except ImportError:  # pragma: no cover
    yaml = None

DEFAULTS = dict(
    data_root="/data/uavid/tiles_1024",
    num_classes=8,
    crop=512,
    batch_size=2,
    epochs=60,
    lr=6e-5,
    weight_decay=0.01,
    power=1.0,
    warmup_iters=1500,
    val_every=2,
    workers=4,
    seed=1234,
    out_dir="work_dirs/uavid",
    synthetic=False,
)


class Cfg(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/uavid_mitb0.yaml")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--batch-size", type=int, dest="batch_size")
    parser.add_argument("--lr", type=float)
    parser.add_argument("--out-dir", dest="out_dir")
    parser.add_argument("--synthetic", action="store_true", default=None)
    args = parser.parse_args()
    cfg = Cfg(DEFAULTS)
    if args.config and os.path.exists(args.config) and yaml is not None:
        with open(args.config) as f:
            cfg.update(yaml.safe_load(f) or {})
    for k, v in vars(args).items():
        if v is not None and k != "config":
            cfg[k] = v
    return cfg
