#!/usr/bin/env python3
"""LeafNet: plant-disease classifier (PlantVillage, 38 classes), Keras 3 + Horovod.

Run:  horovodrun -np 4 python train_keras.py --data /data/plantvillage --epochs 30
"""
import argparse
import datetime
import os

import keras
import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="/data/plantvillage")
ap.add_argument("--img", type=int, default=128)
ap.add_argument("--batch", type=int, default=64, help="per worker")
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--warmup", type=int, default=3)
ap.add_argument("--cutmix", type=float, default=0.5, help="probability of cutmix per batch")
ap.add_argument("--logdir", default="logs")
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

run_name = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
log_dir = os.path.join(args.logdir, run_name)
os.makedirs(log_dir, exist_ok=True)


def load_split(split):
    return keras.utils.image_dataset_from_directory(os.path.join(args.data, split), image_size=(args.img, args.img),
                                                    batch_size=None, shuffle=False, label_mode="categorical")


def cutmix(images, labels):
    if np.random.rand() > args.cutmix:
        return images, labels
    b = tf.shape(images)[0]
    lam = np.random.beta(1.0, 1.0)
    cut = int(args.img * np.sqrt(1 - lam))
    y0, x0 = np.random.randint(0, args.img - cut + 1, size=2)
    mask = np.ones((args.img, args.img, 1), "float32")
    mask[y0:y0 + cut, x0:x0 + cut] = 0.0
    idx = tf.random.shuffle(tf.range(b))
    lam = 1.0 - cut * cut / (args.img * args.img)
    return images * mask + tf.gather(images, idx) * (1 - mask), lam * labels + (1 - lam) * tf.gather(labels, idx)


train_ds = load_split("train")
num_train = int(train_ds.cardinality())
train_ds = (train_ds.shard(hvd.size(), hvd.rank())
            .shuffle(2048)
            .batch(args.batch, drop_remainder=True)
            .map(lambda x, y: tf.numpy_function(cutmix, [x, y], [tf.float32, tf.float32]))
            .map(lambda x, y: (tf.ensure_shape(x, [None, args.img, args.img, 3]), tf.ensure_shape(y, [None, 38])))
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
val_ds = load_split("val").shard(hvd.size(), hvd.rank()).batch(128).prefetch(tf.data.AUTOTUNE)

model = keras.Sequential([
    keras.Input((args.img, args.img, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(128, 3, activation="relu"), keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dropout(0.3),
    keras.layers.Dense(38, activation="softmax"),
])

scaled_lr = args.lr * hvd.size()
optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=optimizer, loss="categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
    keras.callbacks.ModelCheckpoint(os.path.join(log_dir, "leafnet_best.keras"), monitor="val_accuracy",
                                    mode="max", save_best_only=True),
    keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=6, restore_best_weights=True),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(log_dir, "training.csv")))
    callbacks.append(keras.callbacks.TensorBoard(log_dir=log_dir))

steps_per_epoch = num_train // (args.batch * hvd.size())
history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, validation_data=val_ds,
                    callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

loss, acc = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print(f"final val loss {loss:.4f}  val acc {acc:.4f}")
