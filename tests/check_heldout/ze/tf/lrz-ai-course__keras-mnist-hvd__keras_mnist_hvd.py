"""Hands-on 4: distributed training of the MNIST CNN with Horovod + Keras.

On the LRZ AI systems:  srun --ntasks=4 --gres=gpu:4 python keras_mnist_hvd.py
"""
import math
import os
import sys

import numpy as np
import tensorflow as tf
import keras

import horovod.tensorflow.keras as hvd

hvd.init()
print(f"Hello from rank {hvd.rank()} of {hvd.size()} on {os.uname()[1]}", flush=True)

BATCH_SIZE = 128
EPOCHS = int(sys.argv[1]) if len(sys.argv) > 1 else 12
BASE_LR = 0.001
CKPT_DIR = os.path.join(os.environ.get("WORK", "."), "handson4_ckpt")

# the dataset is pre-downloaded into the course folder (no internet on the compute nodes)
with np.load("/dss/course/mnist.npz") as d:
    x_train, y_train = d["x_train"], d["y_train"]
    x_test, y_test = d["x_test"], d["y_test"]

x_train = (x_train[..., None] / 255.0).astype("float32")
x_test = (x_test[..., None] / 255.0).astype("float32")

# each worker trains on its own contiguous block of the training set
n_per_worker = len(x_train) // hvd.size()
start = hvd.rank() * n_per_worker
x_train = x_train[start:start + n_per_worker]
y_train = y_train[start:start + n_per_worker]

model = keras.Sequential([
    keras.Input(shape=(28, 28, 1)),
    keras.layers.Conv2D(32, 3, activation="relu"),
    keras.layers.Conv2D(64, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Dropout(0.25),
    keras.layers.Flatten(),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dropout(0.5),
    keras.layers.Dense(10, activation="softmax"),
])

opt = keras.optimizers.Adam(learning_rate=BASE_LR * hvd.size())
dist_opt = hvd.DistributedOptimizer(opt)
model.compile(loss="sparse_categorical_crossentropy", optimizer=opt, metrics=["accuracy"])

os.makedirs(CKPT_DIR, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=BASE_LR * hvd.size(), warmup_epochs=3, verbose=1),
    keras.callbacks.ModelCheckpoint(os.path.join(CKPT_DIR, "checkpoint-{epoch:02d}.weights.h5"),
                                    save_weights_only=True),
]

steps = int(math.ceil(len(x_train) / BATCH_SIZE))
model.fit(x_train, y_train,
          batch_size=BATCH_SIZE,
          steps_per_epoch=steps,
          epochs=EPOCHS,
          callbacks=callbacks,
          validation_data=(x_test, y_test),
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    score = model.evaluate(x_test, y_test, verbose=0)
    print("Test loss:", score[0])
    print("Test accuracy:", score[1])
