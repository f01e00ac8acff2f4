#!/usr/bin/env python
# KISTI Neuron tutorial, part 4: Keras + Horovod on CIFAR-10.
# (adapted by a participant from the single-GPU notebook of part 2)
#   srun -N 2 --ntasks-per-node=2 python cifar10_hvd.py
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--out", default="results")
args = parser.parse_args()

hvd.init()
print(f"hello from rank {hvd.rank()} of {hvd.size()} (local rank {hvd.local_rank()})")

gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

# split the training and test data between the workers
x_train = np.array_split(x_train, hvd.size())[hvd.rank()]
y_train = np.array_split(y_train, hvd.size())[hvd.rank()]
x_test = np.array_split(x_test, hvd.size())[hvd.rank()]
y_test = np.array_split(y_test, hvd.size())[hvd.rank()]

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(10000).batch(args.batch_size).prefetch(tf.data.AUTOTUNE))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(args.batch_size)


def build_model():
    model = keras.Sequential([
        keras.Input(shape=(32, 32, 3)),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),
        layers.Dropout(0.2),
        layers.Conv2D(64, 3, padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.Conv2D(64, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),
        layers.Dropout(0.3),
        layers.Flatten(),
        layers.Dense(256, activation="relu"),
        layers.Dropout(0.4),
        layers.Dense(10, activation="softmax"),
    ])
    return model


model = build_model()
opt = keras.optimizers.Adam(learning_rate=args.lr)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"),
                                                     monitor="val_accuracy", save_best_only=True))

history = model.fit(train_ds, epochs=args.epochs, validation_data=test_ds,
                    callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

test_loss, test_acc = model.evaluate(test_ds, verbose=0)
print(f"[rank {hvd.rank()}] test loss {test_loss:.4f} test accuracy {test_acc:.4f}")
if hvd.rank() == 0:
    with open(os.path.join(args.out, "final.txt"), "w") as f:
        f.write(f"test_accuracy {test_acc:.4f}\n")
