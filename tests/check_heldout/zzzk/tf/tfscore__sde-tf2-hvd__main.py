"""Score-based generative modeling through SDEs -- TF2 + horovod port.

Usage:
  horovodrun -np 2 python main.py --workdir runs/vpsde_cifar --sde vpsde
"""
import argparse
import logging
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from sde_tf import sde_lib
from sde_tf.data import make_dataset
from sde_tf.models import build_score_model
from sde_tf.runner import Runner


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--workdir", required=True)
    p.add_argument("--data", default="data/cifar10_train.npy")
    p.add_argument("--sde", default="vpsde", choices=["vpsde", "subvpsde", "vesde"])
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--warmup", type=int, default=5000)
    p.add_argument("--n_iters", type=int, default=1300001)
    p.add_argument("--ema_rate", type=float, default=0.9999)
    p.add_argument("--log_freq", type=int, default=50)
    p.add_argument("--snapshot_freq", type=int, default=10000)
    return p


def main():
    args = get_parser().parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)
    sde = sde_lib.get_sde(args.sde)
    ds = make_dataset(args.data, args.batch_size)

    score_model = build_score_model()
    lr_fn = sde_lib.warmup_schedule(args.lr * hvd.size(), args.warmup)
    optimizer = tf.keras.optimizers.Adam(learning_rate=lr_fn, global_clipnorm=1.0)

    runner = Runner(args, sde, score_model, optimizer)
    runner.fit(ds)


if __name__ == "__main__":
    main()
