import json
import os
from types import SimpleNamespace

DEFAULTS = {
    "data_dir": "data/faq",
    "max_tokens": 20000,
    "seq_len": 48,
    "embed_dim": 128,
    "filters": 256,
    "batch_size": 32,
    "lr": 5e-4,
    "epochs": 15,
    "warmup_epochs": 2,
    "patience": 3,
    "out_dir": "artifacts/faq_router",
}


def load_settings(path="faq_settings.json"):
    cfg = dict(DEFAULTS)
    if os.path.exists(path):
        with open(path) as f:
            cfg.update(json.load(f))
    return SimpleNamespace(**cfg)
