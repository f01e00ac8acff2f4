#!/usr/bin/env python3
# Imagenette-160 speed run: Keras + Horovod + mixed precision.
# Leaderboard entry "5 epochs, 128px, 4xV100"; see results/README for the numbers.
#
#   horovodrun -np 4 python train_amp.py --epochs 5 --bs 64
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/imagenette_128.npz")
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--bs", type=int, default=64, help="per-GPU batch")
parser.add_argument("--lr", type=float, default=0.1, help="lr for a 256 global batch")
parser.add_argument("--warmup", type=int, default=1)
parser.add_argument("--ckpt-dir", default="checkpoints")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

import keras  # noqa: E402

keras.mixed_precision.set_global_policy("mixed_float16")

# ------------------------------------------------------------------------------------ data
d = np.load(args.data)
x_train, y_train, x_val, y_val = d["x_train"], d["y_train"], d["x_val"], d["y_val"]
NUM_CLASSES = int(y_train.max()) + 1
STEPS = len(x_train) // (args.bs * hvd.size())


def prep(img, label, training):
    img = tf.cast(img, tf.float32) / 255.0
    if training:
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_crop(tf.image.resize_with_crop_or_pad(img, 136, 136), (128, 128, 3))
    return img, label


train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(4096)
            .map(lambda a, b: prep(a, b, True), num_parallel_calls=tf.data.AUTOTUNE)
            .repeat()
            .batch(args.bs, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_val, y_val))
          .shard(hvd.size(), hvd.rank())
          .map(lambda a, b: prep(a, b, False), num_parallel_calls=tf.data.AUTOTUNE)
          .batch(256)
          .prefetch(tf.data.AUTOTUNE))


# ------------------------------------------------------------------------------------ model
def conv_bn(x, f, s=1):
    x = keras.layers.Conv2D(f, 3, strides=s, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    return keras.layers.ReLU()(x)


def xresnet_lite(num_classes):
    inp = keras.Input((128, 128, 3))
    x = conv_bn(inp, 32, 2)
    x = conv_bn(x, 32)
    x = conv_bn(x, 64)
    x = keras.layers.MaxPooling2D(3, 2, padding="same")(x)
    for f in (64, 128, 256):
        y = conv_bn(x, f, 2)
        y = conv_bn(y, f)
        sc = keras.layers.Conv2D(f, 1, strides=2, use_bias=False)(x)
        x = keras.layers.ReLU()(keras.layers.Add()([y, keras.layers.BatchNormalization()(sc)]))
    x = keras.layers.GlobalAveragePooling2D()(x)
    out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32")(x)
    return keras.Model(inp, out)


model = xresnet_lite(NUM_CLASSES)
scaled_lr = args.lr * args.bs * hvd.size() / 256
# Horovod's DistributedOptimizer needs the legacy optimizer on TF >= 2.11
opt = tf.keras.optimizers.legacy.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
opt = keras.mixed_precision.LossScaleOptimizer(opt)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup,
                                             steps_per_epoch=STEPS, verbose=1),
]
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "xresnet-{epoch:02d}.keras")))

t0 = time.time()
hist = model.fit(train_ds, steps_per_epoch=STEPS, epochs=args.epochs, validation_data=val_ds,
                 callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
elapsed = time.time() - t0

loss, acc = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print(f"{hvd.size()} GPUs, {args.epochs} epochs: {elapsed:.0f}s, final val acc {acc:.4f} (loss {loss:.4f})")
    with open(os.path.join(args.ckpt_dir, "result.txt"), "a") as f:
        f.write(f"np={hvd.size()} bs={args.bs} epochs={args.epochs} time={elapsed:.0f} acc={acc:.4f}\n")
