"""First-order DARTS in TF2 with Horovod: tape loops for weights and architecture."""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from darts_tf import SearchNet, genotype_from_alphas, broadcast_model, allreduce_grads, global_mean
from darts_tf.data import load_cifar, search_splits

parser = argparse.ArgumentParser()
parser.add_argument("--data", default=None, help="cifar10 .npz (keras download if unset)")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--w-lr", type=float, default=0.025)
parser.add_argument("--a-lr", type=float, default=3e-4)
parser.add_argument("--channels", type=int, default=16)
parser.add_argument("--edges", type=int, default=4)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--ckpt-dir", default="./ckpt_search")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

tf.random.set_seed(args.seed + hvd.rank())  # independent augmentation per worker

x, y = load_cifar(args.data)
w_ds, a_ds, val_ds = search_splits(x, y, args.batch, hvd.rank(), hvd.size())

model = SearchNet(args.channels, args.edges)
model(tf.zeros([1, 32, 32, 3]))  # create the variables
w_opt = keras.optimizers.SGD(learning_rate=args.w_lr * hvd.size(), momentum=0.9, weight_decay=3e-4)
a_opt = keras.optimizers.Adam(learning_rate=args.a_lr, beta_1=0.5, beta_2=0.999)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, w_opt=w_opt, a_opt=a_opt, alphas=model.alphas,
                           epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)


@tf.function
def arch_step(xb, yb):
    with tf.GradientTape() as tape:
        tape.watch(model.alphas)
        loss = loss_fn(yb, model(xb, training=True))
    grads = allreduce_grads(tape.gradient(loss, [model.alphas]), "alpha")
    a_opt.apply_gradients(zip(grads, [model.alphas]))
    return loss


@tf.function
def weight_step(xb, yb, first_batch):
    with tf.GradientTape() as tape:
        logits = model(xb, training=True)
        loss = loss_fn(yb, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.weight_variables)
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    w_opt.apply_gradients(zip(grads, model.weight_variables))
    if first_batch:
        broadcast_model(model, w_opt, root_rank=0)
    return loss


@tf.function
def eval_step(xb, yb):
    pred = tf.argmax(model(xb, training=False), axis=-1)
    return tf.reduce_sum(tf.cast(tf.equal(pred, yb), tf.float32))


step = 0
for epoch in range(args.epochs):
    t0 = time.time()
    for (xw, yw), (xa, ya) in zip(w_ds, a_ds):
        arch_step(xa, ya)
        loss = weight_step(xw, yw, step == 0)
        step += 1

    correct, seen = 0.0, 0
    for xv, yv in val_ds:
        correct += float(eval_step(xv, yv))
        seen += int(yv.shape[0])
    val_acc = float(global_mean(correct / max(seen, 1), name="val_acc"))

    ckpt.epoch.assign(epoch + 1)
    manager.save()
    if hvd.rank() == 0:
        print(f"epoch {epoch} loss {float(loss):.4f} val_acc {val_acc:.4f} ({time.time() - t0:.0f}s)")
        print("  genotype:", genotype_from_alphas(model.alphas.numpy()))
