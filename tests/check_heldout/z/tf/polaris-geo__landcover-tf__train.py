"""Land-cover patch classifier (Sentinel-2, 10 classes).

2021-2023: tf.distribute.MultiWorkerMirroredStrategy on the k8s TFJob operator.
2024-: Horovod (horovodrun / mpirun) on the HPC partition. The data, model and callback code
lives in landcover/ and is shared with the evaluation notebooks.
"""
import argparse

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from landcover.callbacks import build_callbacks
from landcover.data import make_dataset
from landcover.model import patch_resnet
from landcover.optim import make_optimizer


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train-pattern", default="/data/s2/train-*.tfrecord")
    p.add_argument("--val-pattern", default="/data/s2/val-*.tfrecord")
    p.add_argument("--batch-size", type=int, default=64, help="per replica")
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--steps-per-epoch", type=int, default=500)
    p.add_argument("--val-steps", type=int, default=50)
    p.add_argument("--out", default="/project/landcover/runs/latest")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    strategy = tf.distribute.get_strategy()  # default (no-op) strategy; kept for the shared helpers
    train_ds = make_dataset(args.train_pattern, args.batch_size, training=True)
    val_ds = make_dataset(args.val_pattern, args.batch_size, training=False)

    model = patch_resnet(num_classes=10)
    model.compile(optimizer=make_optimizer(args.base_lr, strategy),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=args.steps_per_epoch,
              validation_data=val_ds, validation_steps=args.val_steps,
              callbacks=build_callbacks(args.out, args.base_lr),
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
