"""hyper-parameters (edit here or override with --key value)"""
import argparse

DEFAULTS = {
    "image_size": 48,
    "n_classes": 5,
    "n_train": 1024,
    "n_val": 256,
    "batch_size": 32,
    "epochs": 25,
    "learning_rate": 3e-4,
    "warmup_epochs": 2,
    "decay_rate": 0.9,
    "ckpt_dir": "./ckpts",
    "max_to_keep": 3,
    "log_every": 50,
}


def get_config(argv=None):
    p = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        p.add_argument("--" + k, type=type(v), default=v)
    return p.parse_args(argv)
