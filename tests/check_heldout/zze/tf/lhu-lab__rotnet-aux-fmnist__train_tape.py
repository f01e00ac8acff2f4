"""Fashion-MNIST classifier with an auxiliary rotation-prediction head (self-supervised aux task).

Gradient accumulation over --accum micro-batches, explicit grouped allreduce of the accumulated
gradients, global-norm clipping and an EMA of the weights used for evaluation and export.

    horovodrun -np 4 python train_tape.py --data data/fashion_mnist.npz --accum 4
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/fashion_mnist.npz")
p.add_argument("--micro-batch", type=int, default=64)
p.add_argument("--accum", type=int, default=4)
p.add_argument("--epochs", type=int, default=15)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--rot-weight", type=float, default=0.5)
p.add_argument("--ema", type=float, default=0.998)
p.add_argument("--clip", type=float, default=2.0)
p.add_argument("--out", default="export/rotnet")
args = p.parse_args()

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

with np.load(args.data) as d:
    x_train, y_train = d["x_train"].astype("float32")[..., None] / 255.0, d["y_train"].astype("int64")
    x_test, y_test = d["x_test"].astype("float32")[..., None] / 255.0, d["y_test"].astype("int64")

# identical permutation everywhere, then a strided slice per worker
perm = np.random.RandomState(1234).permutation(len(x_train))
mine = perm[hvd.rank()::hvd.size()]
x_local, y_local = x_train[mine], y_train[mine]
updates_per_epoch = (len(x_train) // hvd.size()) // (args.micro_batch * args.accum)


def add_rotation(x, y):
    k = tf.random.uniform((), 0, 4, dtype=tf.int32)
    return tf.image.rot90(x, k), (y, tf.cast(k, tf.int64))


train_ds = (tf.data.Dataset.from_tensor_slices((x_local, y_local))
            .shuffle(10000, seed=hvd.rank()).repeat()
            .map(add_rotation, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.micro_batch, drop_remainder=True).prefetch(4))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(1000)

inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(32, 3, activation="relu")(inp)
h = keras.layers.Conv2D(64, 3, activation="relu")(h)
h = keras.layers.MaxPooling2D()(h)
h = keras.layers.Dropout(0.25)(h)
h = keras.layers.Flatten()(h)
h = keras.layers.Dense(128, activation="relu")(h)
model = keras.Model(inp, [keras.layers.Dense(10)(h), keras.layers.Dense(4)(h)])

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt.build(model.trainable_variables)
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)

ema_vars = [tf.Variable(v, trainable=False) for v in model.trainable_variables]
accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def micro_step(x, y_cls, y_rot):
    with tf.GradientTape() as tape:
        logits_cls, logits_rot = model(x, training=True)
        loss = ce(y_cls, logits_cls) + args.rot_weight * ce(y_rot, logits_rot)
    for a, g in zip(accum, tape.gradient(loss, model.trainable_variables)):
        a.assign_add(g / args.accum)
    return loss


@tf.function
def apply_accumulated():
    grads = hvd.grouped_allreduce([a.read_value() for a in accum], op=hvd.Average)
    grads, norm = tf.clip_by_global_norm(grads, args.clip)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    for a in accum:
        a.assign(tf.zeros_like(a))
    for e, v in zip(ema_vars, model.trainable_variables):
        e.assign(args.ema * e + (1.0 - args.ema) * v)
    return norm


def evaluate_ema():
    backup = [tf.identity(v) for v in model.trainable_variables]
    for v, e in zip(model.trainable_variables, ema_vars):
        v.assign(e)
    correct = 0
    for x, y in test_ds:
        logits, _ = model(x, training=False)
        correct += int(tf.reduce_sum(tf.cast(tf.argmax(logits, -1) == y, tf.int32)))
    for v, b in zip(model.trainable_variables, backup):
        v.assign(b)
    return correct / len(x_test)


it = iter(train_ds)
for epoch in range(args.epochs):
    t0, losses = time.time(), []
    for _ in range(updates_per_epoch):
        for _ in range(args.accum):
            x, (y_cls, y_rot) = next(it)
            losses.append(float(micro_step(x, y_cls, y_rot)))
        gnorm = apply_accumulated()
    acc = evaluate_ema()   # full test set on every worker
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{args.epochs} loss {np.mean(losses):.4f} |g| {float(gnorm):.3f} "
              f"ema test acc {acc:.4f} ({time.time() - t0:.1f}s)", flush=True)

if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    model.save_weights(os.path.join(args.out, "last.weights.h5"))
    np.savez(os.path.join(args.out, "ema_weights.npz"), *[e.numpy() for e in ema_vars])
