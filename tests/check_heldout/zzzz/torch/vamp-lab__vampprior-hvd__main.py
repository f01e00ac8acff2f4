"""Launch VampPrior VAE training on several workers with horovod.run (no horovodrun needed).

    python main.py --config configs/mnist.json --num-proc 4
"""
import argparse
import horovod

from vamp.config import Config
from vamp.worker import train_worker


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--num-proc", type=int, default=None)
    ap.add_argument("--hosts", default=None, help="e.g. host1:4,host2:4")
    ap.add_argument("--epochs", type=int, default=None)
    a = ap.parse_args()
    cfg = Config.from_json(a.config) if a.config else Config()
    if a.num_proc:
        cfg.num_proc = a.num_proc
    if a.hosts:
        cfg.hosts = a.hosts
    if a.epochs:
        cfg.epochs = a.epochs
    return cfg


if __name__ == "__main__":
    cfg = parse()
    ranks = horovod.run(train_worker, args=(cfg,), num_proc=cfg.num_proc,
                        hosts=cfg.hosts or None, use_gloo=True, verbose=1)
    print("finished on ranks", ranks)
