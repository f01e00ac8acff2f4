"""Train an image classifier from a YAML experiment file.

    horovodrun -np 4 python train.py --config configs/cifar_small.yaml
"""
import argparse
import logging

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from kc.config import load_experiment
from kc.trainer import Trainer

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("kc")


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/cifar_small.yaml")
    ap.add_argument("--epochs", type=int, default=None, help="override trainer.epochs")
    ap.add_argument("--workdir", default=None)
    return ap.parse_args()


def main():
    args = get_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = load_experiment(args.config)
    if args.epochs is not None:
        cfg["trainer"]["epochs"] = args.epochs
    if args.workdir is not None:
        cfg["trainer"]["workdir"] = args.workdir
    if hvd.rank() == 0:
        log.info("experiment: %s", cfg)

    trainer = Trainer(cfg)
    history = trainer.train()
    if hvd.rank() == 0:
        log.info("final: %s", {k: v[-1] for k, v in history.history.items()})


if __name__ == "__main__":
    main()
