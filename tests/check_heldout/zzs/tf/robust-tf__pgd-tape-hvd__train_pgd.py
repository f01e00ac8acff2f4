"""Madry-style PGD adversarial training on Fashion-MNIST, custom TF2 loop with Horovod.

Run:  horovodrun -np 2 python train_pgd.py --epochs 20 --ckpt-dir ckpts/pgd
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from pgdtf.attack import pgd_linf
from pgdtf.data import load_fashion
from pgdtf.model import small_cnn
from utils.hvd_utils import allreduce_counts, pin_gpu
from utils.log import get_logger

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--eps", type=float, default=0.1)
p.add_argument("--alpha", type=float, default=0.01)
p.add_argument("--steps", type=int, default=20)
p.add_argument("--ckpt-dir", default="ckpts/pgd")
args = p.parse_args()

hvd.init()
pin_gpu()
log = get_logger("pgd", hvd.rank())
log.info("%d workers, global batch %d", hvd.size(), args.batch_size * hvd.size())

train_ds, test_ds = load_fashion(args.batch_size, hvd.size(), hvd.rank())
model = small_cnn()
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
if manager.latest_checkpoint:
    # every worker restores the same files, so no broadcast is needed for the restored state
    ckpt.restore(manager.latest_checkpoint)
    log.info("resumed from %s", manager.latest_checkpoint)


@tf.function
def train_step(x, y, first_batch):
    x_adv = pgd_linf(model, loss_fn, x, y, args.eps, args.alpha, args.steps)
    with tf.GradientTape() as tape:
        logits = model(x_adv, training=True)
        loss = loss_fn(y, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def evaluate():
    clean = robust = n = 0
    for x, y in test_ds:
        x_adv = pgd_linf(model, loss_fn, x, y, args.eps, args.alpha, 40)
        clean += int(tf.reduce_sum(tf.cast(tf.argmax(model(x), 1) == y, tf.int32)))
        robust += int(tf.reduce_sum(tf.cast(tf.argmax(model(x_adv), 1) == y, tf.int32)))
        n += int(tf.shape(y)[0])
    clean, robust, n = allreduce_counts(clean, robust, n)
    return clean / n, robust / n


first = True
for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
    mean_loss = keras.metrics.Mean()
    for x, y in train_ds:
        mean_loss.update_state(train_step(x, y, first))
        first = False
    loss = hvd.allreduce(mean_loss.result(), name="epoch_loss")
    clean_acc, robust_acc = evaluate()
    log.info("epoch %d: loss %.4f  clean %.4f  PGD-40 %.4f", epoch + 1, float(loss), clean_acc, robust_acc)
    if hvd.rank() == 0:
        ckpt.epoch.assign(epoch + 1)
        manager.save()
