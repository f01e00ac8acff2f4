import copy
import json
import os

_DEFAULTS = {
    "data": {"root": "data/ucf101_clips", "num_frames": 8, "size": 112, "workers": 4},
    "model": {"name": "c3d_small", "num_classes": 101, "dropout": 0.3},
    "train": {
        "epochs": 30,
        "batch_size": 16,          # per GPU
        "base_lr": 0.01,           # for one GPU; scaled by the world size in optim.py
        "warmup_epochs": 2,
        "weight_decay": 5e-4,
        "clip_grad": 5.0,
        "amp": True,
        "ckpt_every": 5,
    },
    "output_dir": "runs/vidcls",
}


def _merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = v
    return dst


def load_config(path=None, overrides=None):
    cfg = copy.deepcopy(_DEFAULTS)
    if path and os.path.exists(path):
        with open(path) as f:
            _merge(cfg, json.load(f))
    for item in overrides or []:
        key, value = item.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node[p]
        node[leaf] = type(node[leaf])(json.loads(value)) if not isinstance(node[leaf], str) else value
    return cfg
