"""DeepFM CTR model, Horovod + GradientTape.  Reports logloss and AUC on the validation day."""
import argparse
import json
import os

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

from deepfm.env import broadcast_initial_state, init_horovod
from deepfm.features import input_fn, steps_for
from deepfm.model import DeepFM
from deepfm.timing import Throughput

ap = argparse.ArgumentParser()
ap.add_argument("--train", default="/data/ctr/day_0_22.npz")
ap.add_argument("--valid", default="/data/ctr/day_23.npz")
ap.add_argument("--meta", default="/data/ctr/meta.json")
ap.add_argument("--batch-size", type=int, default=4096)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=1)
ap.add_argument("--log-every", type=int, default=200)
ap.add_argument("--ckpt-dir", default="ckpt/deepfm")
args = ap.parse_args()

rank, world = init_horovod()
with open(args.meta) as f:
    vocab_sizes = json.load(f)["vocab_sizes"]

model = DeepFM(vocab_sizes)
optimizer = keras.optimizers.Adam(learning_rate=args.lr * world)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
train_ds = input_fn(args.train, args.batch_size, world, rank, training=True)
valid_ds = input_fn(args.valid, args.batch_size, world, rank, training=False)
steps = steps_for(args.train, args.batch_size, world)


@tf.function
def train_step(features, labels):
    with tf.GradientTape() as tape:
        loss = bce(labels, model(features, training=True))
    tape = hvd.DistributedGradientTape(tape, sparse_as_dense=True)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

meter = Throughput(args.batch_size)
for epoch in range(args.epochs):
    for step, (features, labels) in enumerate(train_ds.take(steps)):
        loss = train_step(features, labels)
        meter.tick()
        if epoch == 0 and step == 0:
            broadcast_initial_state(model, optimizer)
        if step % args.log_every == 0:
            avg = hvd.allreduce(loss, op=hvd.Average)
            if rank == 0:
                print(f"epoch {epoch} step {step}/{steps} logloss {float(avg):.5f} "
                      f"{meter.rate() * world:.0f} ex/s", flush=True)

    auc = keras.metrics.AUC(num_thresholds=4000)
    val_loss, n = 0.0, 0
    for features, labels in valid_ds:
        logits = model(features, training=False)
        auc.update_state(labels, tf.sigmoid(logits))
        val_loss += float(bce(labels, logits)) * int(tf.size(labels))
        n += int(tf.size(labels))
    val_loss = hvd.allreduce(tf.constant(val_loss / n), op=hvd.Average)
    if rank == 0:
        print(f"epoch {epoch} valid logloss {float(val_loss):.5f} AUC {float(auc.result()):.5f}", flush=True)
        manager.save()
