# Single-image deraining (Rain100H) -- PReNet-like recurrent net, Keras 3 + Horovod.
# Run:  horovodrun -np 4 python train_derain.py --data ./Rain100H
import argparse
import glob
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="./Rain100H")
ap.add_argument("--patch", type=int, default=100)
ap.add_argument("--batch", type=int, default=18)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--stages", type=int, default=4)
ap.add_argument("--ssim-weight", type=float, default=0.2)
ap.add_argument("--ckpt", default="./ckpt/prenet_{epoch:03d}.keras")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load_split(split):
    rain = sorted(glob.glob(os.path.join(args.data, split, "rain", "*.png")))
    norain = sorted(glob.glob(os.path.join(args.data, split, "norain", "*.png")))
    return rain, norain


def read_pair(r, c):
    r = tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(r), 3), tf.float32)
    c = tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(c), 3), tf.float32)
    return r, c


def random_patch(r, c):
    rc = tf.image.random_crop(tf.concat([r, c], -1), [args.patch, args.patch, 6])
    return rc[..., :3], rc[..., 3:]


rain, norain = load_split("train")
n_train = len(rain)
train = (tf.data.Dataset.from_tensor_slices((rain, norain))
         .shard(hvd.size(), hvd.rank())
         .map(read_pair).cache().shuffle(256).repeat()
         .map(random_patch, num_parallel_calls=tf.data.AUTOTUNE)
         .batch(args.batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
test = tf.data.Dataset.from_tensor_slices(load_split("test")).map(read_pair).batch(1)


def build_prenet(stages, nf=32):
    inp = keras.Input((None, None, 3))
    x = inp
    for _ in range(stages):   # unrolled progressive refinement with shared-free stages
        h = keras.layers.Conv2D(nf, 3, padding="same", activation="relu")(keras.layers.Concatenate()([inp, x]))
        for _ in range(2):
            h = keras.layers.Add()([h, keras.layers.Conv2D(nf, 3, padding="same", activation="relu")(h)])
        x = keras.layers.Add()([inp, keras.layers.Conv2D(3, 3, padding="same")(h)])
    return keras.Model(inp, x)


def loss_fn(y, p):
    ssim = tf.reduce_mean(tf.image.ssim(y, tf.clip_by_value(p, 0.0, 1.0), 1.0))
    return tf.reduce_mean(tf.abs(y - p)) + args.ssim_weight * (1.0 - ssim)


def psnr(y, p):
    return tf.image.psnr(y, tf.clip_by_value(p, 0.0, 1.0), 1.0)


model = build_prenet(args.stages)
scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=keras.optimizers.Adam(learning_rate=scaled_lr), loss=loss_fn, metrics=[psnr])

os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=5, verbose=1),
    keras.callbacks.ModelCheckpoint(args.ckpt),
    keras.callbacks.LearningRateScheduler(lambda e, lr: lr * 0.2 if e in (30, 50, 80) else lr),
]

model.fit(train, steps_per_epoch=n_train // (args.batch * hvd.size()), epochs=args.epochs,
          validation_data=test, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
if hvd.rank() == 0:
    print("final test:", dict(zip(model.metrics_names, model.evaluate(test, verbose=0))))
