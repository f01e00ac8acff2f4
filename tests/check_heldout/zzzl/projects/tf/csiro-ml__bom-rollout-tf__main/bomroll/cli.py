"""Command-line driver.  The training code lives in the caller's `train(cfg)`;
this module parses options, merges the YAML file over the defaults and starts Horovod."""
import argparse
import os
import sys

import tensorflow as tf
import yaml
import horovod.tensorflow as hvd

DEFAULTS = dict(data_path=None, var_names=["tas", "psl", "uas", "vas", "pr"], train_years=[1990, 2015],
                valid_years=[2016, 2018], steps_per_year=1460, rollout=4, batch=2, lr=2e-4, epochs=40,
                hidden=128, ckpt_dir="ckpt", walltime_hours=47.5, seed=0)


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument("config", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "configs", "base.yaml"))
    p.add_argument("--override", nargs="*", default=[])
    a = p.parse_args(argv)
    cfg = dict(DEFAULTS)
    with open(a.config) as f:
        cfg.update(yaml.safe_load(f) or {})
    for kv in a.override:
        k, v = kv.split("=", 1)
        cfg[k] = yaml.safe_load(v)
    return cfg


def setup_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def run(train_fn, argv=None):
    cfg = parse(sys.argv[1:] if argv is None else argv)
    setup_horovod()
    return train_fn(cfg)
