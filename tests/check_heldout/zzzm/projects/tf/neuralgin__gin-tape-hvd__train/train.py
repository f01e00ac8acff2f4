r"""Train with gin-style bindings.

  horovodrun -np 4 python train.py --gin_file=configs/base.gin \
      --gin_param="train_loop.epochs=20" --gin_param="make_optimizer.name='adam'"
  GIN_PARAMS="train_loop.batch_size=64" horovodrun -np 2 python train.py
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from gintape import registry
from gintape import models  # noqa: F401  registers the model factories
from gintape.train_lib import train_loop


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--gin_file", action="append", default=[])
    p.add_argument("--gin_param", action="append", default=[])
    p.add_argument("--workdir", default=os.environ.get("WORKDIR", "/tmp/gintape"))
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    env_params = [p for p in os.environ.get("GIN_PARAMS", "").split(";") if p.strip()]
    registry.parse_config_files_and_bindings(args.gin_file or ["configs/base.gin"],
                                             args.gin_param + env_params)
    if hvd.rank() == 0:
        print(registry.config_str())
    train_loop(workdir=args.workdir)


if __name__ == "__main__":
    main()
