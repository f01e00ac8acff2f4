"""Response-based KD on CIFAR-10: ResNet teacher (frozen) -> small student.

    horovodrun -np 4 python distill.py --teacher teachers/resnet20.keras
"""
import argparse

import horovod.tensorflow.keras as hvd
import keras

from kdk.callbacks import standard_callbacks
from kdk.data import cifar10
from kdk.distiller import Distiller
from kdk.env import init_workers


def small_student(num_classes=10):
    return keras.Sequential([
        keras.Input((32, 32, 3)),
        keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, padding="same", activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(num_classes),
    ], name="student")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--teacher", default="teachers/resnet20.keras")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--temperature", type=float, default=4.0)
    ap.add_argument("--out", default="runs/kd")
    args = ap.parse_args()

    rank, size = init_workers()
    train_ds, val_ds, steps = cifar10(args.batch_size, rank, size)

    teacher = keras.models.load_model(args.teacher, compile=False)
    model = Distiller(small_student(), teacher, temperature=args.temperature)
    model(keras.ops.zeros((1, 32, 32, 3)))  # build, so ModelCheckpoint can save the weights
    scaled_lr = args.lr * size
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr)))

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=standard_callbacks(args.out, 3, scaled_lr, steps),
              verbose=2 if rank == 0 else 0)


if __name__ == "__main__":
    main()
