"""ResNet-20 / CIFAR-10 with horovod.tensorflow.keras.

Frontier / Summit training series, session 4 homework, extended for our augmentation study.
    srun -N2 -n16 --gpus-per-task=1 python train_keras.py --epochs 60
"""
import argparse
import time

import keras
import horovod.tensorflow.keras as hvd

from hvdtools import setup_devices, cifar_datasets, build_callbacks
from models.resnet20 import resnet20


class ThroughputLogger(keras.callbacks.Callback):
    def __init__(self, batch_size, rank):
        super().__init__()
        self.batch_size, self.rank = batch_size, rank

    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.time()
        self.seen = 0

    def on_train_batch_end(self, batch, logs=None):
        self.seen += self.batch_size

    def on_epoch_end(self, epoch, logs=None):
        print(f"[rank {self.rank}] epoch {epoch}: {self.seen / (time.time() - self.t0):.1f} img/s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--base-lr", type=float, default=0.05)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--out", default="./out_cifar")
    ap.add_argument("--throughput", action="store_true")
    args = ap.parse_args()

    rank, size = setup_devices()
    train_ds, test_ds, steps, val_steps = cifar_datasets(args.batch_size)

    model = resnet20()
    scaled_lr = args.base_lr * size
    opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = build_callbacks(scaled_lr, args.warmup_epochs, steps, args.out, args.epochs)
    if args.throughput:
        callbacks.append(ThroughputLogger(args.batch_size, rank))

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
              validation_data=test_ds, validation_steps=val_steps,
              callbacks=callbacks, verbose=2 if rank == 0 else 0)


if __name__ == "__main__":
    main()
