import argparse
import json


DEFAULTS = dict(image_size=64, num_classes=100, batch_size=64, epochs=40, base_lr=0.05,
                mixed_precision=True, fp16_allreduce=False, warmup_epochs=3, train_size=50000,
                val_size=5000, ckpt_dir="./ckpt", log_dir="./logs", verbose=1)


def get_config(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/resnet_small.json")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--train-size", type=int)
    ap.add_argument("--val-size", type=int)
    ap.add_argument("--no-mp", action="store_true", help="disable mixed_float16")
    a = ap.parse_args(argv)
    cfg = dict(DEFAULTS)
    with open(a.config) as f:
        cfg.update(json.load(f))
    for k in ("epochs", "batch_size", "train_size", "val_size"):
        if getattr(a, k) is not None:
            cfg[k] = getattr(a, k)
    if a.no_mp:
        cfg["mixed_precision"] = False
    return argparse.Namespace(**cfg)
