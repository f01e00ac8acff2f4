"""Process set-up shared by the training and evaluation entry points."""
import json
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def load_config(path, **overrides):
    with open(path) as f:
        cfg = json.load(f)
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    return cfg


def setup(cfg):
    """Initialise Horovod (multi-worker runs) and give this process one GPU."""
    if cfg.get("distributed", False):
        hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    os.makedirs(cfg["out_dir"], exist_ok=True)


def is_chief():
    return hvd.rank() == 0
