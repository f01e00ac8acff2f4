"""FGSM adversarial training of a small CNN on CIFAR-10 with Keras 3 fit + Horovod.

    horovodrun -np 4 python train.py --epochs 60
"""
import argparse

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from advfit import AdversarialModel, build_backbone
from advfit.callbacks import get_callbacks
from advfit.data import cifar10


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epsilon", type=float, default=8 / 255)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--out-dir", default="artifacts")
    return ap.parse_args()


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, val_ds, steps = cifar10(args.batch_size, hvd.rank(), hvd.size())

    model = AdversarialModel(build_backbone(), epsilon=args.epsilon)
    lr = args.lr * hvd.size()
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=lr),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    history = model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps,
                        validation_data=val_ds,
                        callbacks=get_callbacks(args.out_dir, lr, args.warmup_epochs),
                        verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print("final val accuracy:", history.history["val_accuracy"][-1])


if __name__ == "__main__":
    main()
