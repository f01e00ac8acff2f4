"""WRN-16-4 / CIFAR-100 reference run for the Keras scaling table.

    horovodrun -np 4 python train.py --config configs/base.json
"""
import argparse

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from bench.config import RunConfig
from bench.trainer import KerasTrainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--out-dir", dest="out_dir")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = RunConfig.from_json(args.config, epochs=args.epochs, out_dir=args.out_dir)
    trainer = KerasTrainer(cfg)
    trainer.fit()
    loss, acc = trainer.evaluate()
    if hvd.rank() == 0:
        print(f"final test loss {loss:.4f}  top-1 {acc:.4f}  ({hvd.size()} workers)")


if __name__ == "__main__":
    main()
