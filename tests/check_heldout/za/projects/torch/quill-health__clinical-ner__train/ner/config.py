from types import SimpleNamespace

import horovod.torch as hvd
import yaml

DEFAULTS = dict(batch_size=32, lr=5e-4, scale_lr=True, epochs=10, emb_dim=200, hidden=256,
                max_vocab=50000, crf_lr_mult=10.0, clip=5.0, out="checkpoints/ner")


def load(path):
    with open(path) as f:
        cfg = {**DEFAULTS, **yaml.safe_load(f)}
    if cfg["scale_lr"]:
        # linear scaling rule: batch_size is per worker
        cfg["lr"] = cfg["lr"] * hvd.size()
    return SimpleNamespace(**cfg)
