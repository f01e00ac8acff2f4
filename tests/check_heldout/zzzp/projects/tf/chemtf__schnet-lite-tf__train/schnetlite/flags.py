import argparse

import horovod.tensorflow as hvd


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/qm9.npz")
    p.add_argument("--n-mols", type=int, default=110000)
    p.add_argument("--target", default="U0")
    p.add_argument("--n-interactions", type=int, default=3)
    p.add_argument("--n-filters", type=int, default=64)
    p.add_argument("--cutoff", type=float, default=5.0)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--base-lr", type=float, default=1e-4)
    p.add_argument("--decay-steps", type=int, default=100000)
    p.add_argument("--epochs", type=int, default=500)
    p.add_argument("--model-dir", default="models/schnet")
    p.add_argument("--keep", type=int, default=5)
    return p.parse_args(argv)


def finalize(cfg):
    """derived settings; call after hvd.init()"""
    cfg.lr = cfg.base_lr * hvd.size()
    cfg.global_batch = cfg.batch_size * hvd.size()
    return cfg
