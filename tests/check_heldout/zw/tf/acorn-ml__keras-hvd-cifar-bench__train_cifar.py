#!/usr/bin/env python
# CIFAR-10 ConvMixer with a hand-written tf.GradientTape loop + Horovod.
# Global batch is fixed (--global-batch) and split across workers, so the lr never changes with -np.
#
#   horovodrun -np 2 python train_cifar.py --epochs 25
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--global-batch", type=int, default=512)
p.add_argument("--epochs", type=int, default=25)
p.add_argument("--lr", type=float, default=0.01, help="for the global batch")
p.add_argument("--wd", type=float, default=5e-5)
p.add_argument("--dim", type=int, default=256)
p.add_argument("--depth", type=int, default=8)
p.add_argument("--save", default="convmixer.weights.h5")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

assert args.global_batch % hvd.size() == 0, "global batch must divide evenly"
local_batch = args.global_batch // hvd.size()


def log(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)


# ---------------------------------------------------------------- data
(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
x_train, x_test = x_train.astype("float32") / 255.0, x_test.astype("float32") / 255.0
y_train, y_test = y_train.ravel().astype("int64"), y_test.ravel().astype("int64")

# one permutation for everybody (fixed seed), then every worker keeps its own stride of it
perm = np.random.RandomState(1234).permutation(len(x_train))
per_worker = len(perm) // hvd.size()
mine = perm[hvd.rank()::hvd.size()][:per_worker]
x_local, y_local = x_train[mine], y_train[mine]
steps_per_epoch = per_worker // local_batch

train_ds = (tf.data.Dataset.from_tensor_slices((x_local, y_local))
            .shuffle(per_worker, reshuffle_each_iteration=True)
            .map(lambda x, y: (tf.image.random_flip_left_right(x), y), num_parallel_calls=tf.data.AUTOTUNE)
            .batch(local_batch, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
# every worker scores the complete test set; rank 0 reports it
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(1000)


# ---------------------------------------------------------------- model
def conv_mixer(dim, depth, kernel=5, patch=2, classes=10):
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(dim, patch, strides=patch)(inp)
    x = keras.layers.BatchNormalization()(keras.layers.Activation("gelu")(x))
    for _ in range(depth):
        r = x
        x = keras.layers.DepthwiseConv2D(kernel, padding="same")(x)
        x = keras.layers.Add()([keras.layers.BatchNormalization()(keras.layers.Activation("gelu")(x)), r])
        x = keras.layers.Conv2D(dim, 1)(x)
        x = keras.layers.BatchNormalization()(keras.layers.Activation("gelu")(x))
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, keras.layers.Dense(classes)(x))


model = conv_mixer(args.dim, args.depth)
total_steps = args.epochs * steps_per_epoch
lr_fn = keras.optimizers.schedules.PiecewiseConstantDecay(
    [int(0.4 * total_steps), int(0.8 * total_steps)], [args.lr, args.lr * 0.1, args.lr * 0.01])
opt = keras.optimizers.AdamW(learning_rate=lr_fn, weight_decay=args.wd)
opt.build(model.trainable_variables)
loss_obj = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# identical starting point: weights and (freshly built) optimizer slots from rank 0
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_obj(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def eval_step(x, y):
    logits = model(x, training=False)
    return tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.int64))


log(f"workers={hvd.size()} local_batch={local_batch} steps/epoch={steps_per_epoch}")
for epoch in range(args.epochs):
    t0 = time.time()
    losses = [float(train_step(x, y)) for x, y in train_ds.take(steps_per_epoch)]
    correct = sum(int(eval_step(x, y)) for x, y in test_ds)
    log(f"epoch {epoch + 1:2d}  loss {np.mean(losses):.4f}  test acc {correct / len(x_test):.4f}  "
        f"({time.time() - t0:.1f}s)")
    if hvd.rank() == 0:
        model.save_weights(args.save)
