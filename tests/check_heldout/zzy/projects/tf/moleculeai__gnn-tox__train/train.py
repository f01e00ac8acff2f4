"""GCN on Tox21 (12 assays, scaffold split) - custom training loop with Horovod.

    horovodrun -np 4 python train.py --data data/tox21_graphs.npz --epochs 50
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from toxgnn import TASKS
from toxgnn.data import eval_dataset, load_split, train_dataset
from toxgnn.layers import ToxGCN
from toxgnn.metrics import multitask_auroc
from toxgnn.runtime import init_horovod

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/tox21_graphs.npz")
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=50)
ap.add_argument("--model-dir", default="models/tox_gcn")
args = ap.parse_args()

rank, world = init_horovod()
train = load_split(args.data, "train")
valid = load_split(args.data, "valid")
train_ds = train_dataset(train, args.batch_size, seed=rank)
valid_ds = eval_dataset(valid)

model = ToxGCN(n_tasks=len(TASKS))
opt = keras.optimizers.Adam(learning_rate=args.lr * world)

# positive-class weight per task from label counts (measured compounds only)
pos = (train["y"] * train["mask"]).sum(0)
neg = ((1 - train["y"]) * train["mask"]).sum(0)
pos_weight = tf.constant(neg / np.maximum(pos, 1.0), tf.float32)


def masked_loss(y, mask, logits):
    per = tf.nn.weighted_cross_entropy_with_logits(labels=y, logits=logits, pos_weight=pos_weight)
    return tf.reduce_sum(per * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)


@tf.function
def train_step(batch, first_batch):
    with tf.GradientTape() as tape:
        logits = model(batch["atoms"], batch["adj"], training=True)
        loss = masked_loss(batch["y"], batch["mask"], logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.model_dir, max_to_keep=3)

first = True
for epoch in range(args.epochs):
    t0 = time.time()
    losses = []
    for batch in train_ds:
        losses.append(float(train_step(batch, first)))
        first = False
    scores = np.concatenate([model(b["atoms"], b["adj"]).numpy() for b in valid_ds])
    mean_auc, per_task = multitask_auroc(valid["y"], scores, valid["mask"])
    manager.save(checkpoint_number=epoch)
    if rank == 0:
        print(f"epoch {epoch:3d} loss {np.mean(losses):.4f} valid mean AUROC {mean_auc:.4f} "
              f"({time.time() - t0:.0f}s)")
        print("  " + "  ".join(f"{t}={a:.3f}" for t, a in zip(TASKS, per_task)))
