"""PhaseNet-style P/S picker, custom loop, Horovod data parallel.

    mpirun -np 4 python train_tape.py --train-dir data/stead/train --dev-dir data/stead/dev
"""
import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from phasepick.data import build_dataset, count_batches
from phasepick.model import PhaseNet
from phasepick.utils import configure_gpus, make_manager, pick_f1

p = argparse.ArgumentParser()
p.add_argument("--train-dir", default="data/stead/train")
p.add_argument("--dev-dir", default="data/stead/dev")
p.add_argument("--ckpt-dir", default="ckpt/phasenet")
p.add_argument("--epochs", type=int, default=50)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
args = p.parse_args()

hvd.init()
configure_gpus(hvd.local_rank())

train_ds = build_dataset(args.train_dir, args.batch_size, hvd.size(), hvd.rank(), training=True)
dev_ds = build_dataset(args.dev_dir, args.batch_size, hvd.size(), hvd.rank(), training=False)
steps = count_batches(args.train_dir, args.batch_size, hvd.size())

model = PhaseNet()
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True)
ckpt, manager = make_manager(model, opt, args.ckpt_dir)

# Horovod: every worker starts from rank 0's weights and optimizer state
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)


@tf.function
def train_step(waves, targets):
    with tf.GradientTape() as tape:
        logits = model(waves, training=True)
        loss = loss_fn(targets, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def dev_step(waves, targets):
    logits = model(waves, training=False)
    probs = tf.nn.softmax(logits)
    return loss_fn(targets, logits), pick_f1(targets, probs, 0), pick_f1(targets, probs, 1)


for epoch in range(args.epochs):
    t0 = time.time()
    train_loss = tf.keras.metrics.Mean()
    for waves, targets in train_ds.take(steps):
        train_loss.update_state(train_step(waves, targets))

    dev_loss, f1_p, f1_s = tf.keras.metrics.Mean(), tf.keras.metrics.Mean(), tf.keras.metrics.Mean()
    for waves, targets in dev_ds:
        loss, fp, fs = dev_step(waves, targets)
        dev_loss.update_state(loss)
        f1_p.update_state(fp)
        f1_s.update_state(fs)

    if hvd.rank() == 0:
        print(f"epoch {epoch:3d} {time.time() - t0:5.0f}s  train {train_loss.result():.4f}  "
              f"dev {dev_loss.result():.4f}  P-hit {f1_p.result():.3f}  S-hit {f1_s.result():.3f}")
        ckpt.epoch.assign(epoch)
        manager.save()
