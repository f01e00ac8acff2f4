import argparse

import yaml

_DEFAULTS = dict(csv=None, target="label", categorical=[], d_token=64, depth=3, heads=8,
                 attn_dropout=0.1, ff_dropout=0.1, batch_size=512, epochs=30, base_lr=2e-4,
                 warmup_epochs=3, patience=5, ckpt="checkpoints/ftt-{epoch:03d}.keras", seed=1234)


def get_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/default.yaml")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", dest="batch_size", type=int)
    ap.add_argument("--csv")
    ns = ap.parse_args()
    cfg = dict(_DEFAULTS)
    with open(ns.config) as fh:
        cfg.update(yaml.safe_load(fh) or {})
    cfg.update({k: v for k, v in vars(ns).items() if v is not None and k != "config"})
    return argparse.Namespace(**cfg)
