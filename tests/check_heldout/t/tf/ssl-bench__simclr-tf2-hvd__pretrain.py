"""SimCLR pretraining on STL-10 unlabeled, then a linear probe on the labeled split.
TF2 custom loops, Horovod. `horovodrun -np 8 python pretrain.py --epochs 100`
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from src.env import setup_gpus

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/stl10_64.npz")
ap.add_argument("--size", type=int, default=64)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--probe-epochs", type=int, default=30)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--probe-lr", type=float, default=0.05)
ap.add_argument("--temperature", type=float, default=0.5)
ap.add_argument("--amp", action="store_true")
ap.add_argument("--out", default="runs/simclr")
args = ap.parse_args()

hvd.init()
setup_gpus(mixed_precision=args.amp)
tf.random.set_seed(1000 + hvd.rank())          # independent augmentations per worker

import keras  # noqa: E402
from src.data import labeled_ds, unlabeled_ds  # noqa: E402
from src.losses import nt_xent  # noqa: E402
from src.models import encoder as make_encoder, linear_head, projector  # noqa: E402

d = np.load(args.data)
unl = unlabeled_ds(d["x_unlabeled"], args.size, args.batch, hvd.size(), hvd.rank())
train_l = labeled_ds(d["x_train"], d["y_train"], args.batch, hvd.size(), hvd.rank(), True)
test_l = labeled_ds(d["x_test"], d["y_test"], 512, hvd.size(), hvd.rank(), False)
num_classes = int(d["y_train"].max()) + 1

# ------------------------------------------------------------------ phase 1: SimCLR
enc = make_encoder(args.size)
proj = projector(enc.output_shape[-1])
opt = keras.optimizers.Adam(args.lr * hvd.size())
ssl_vars = enc.trainable_variables + proj.trainable_variables


@tf.function
def ssl_step(v1, v2, first_batch):
    with tf.GradientTape() as tape:
        loss = nt_xent(proj(enc(v1, training=True), training=True),
                       proj(enc(v2, training=True), training=True), args.temperature)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, ssl_vars)
    opt.apply_gradients(zip(grads, ssl_vars))
    if first_batch:
        hvd.broadcast_variables(enc.variables + proj.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


for epoch in range(args.epochs):
    losses = []
    for i, (v1, v2) in enumerate(unl):
        losses.append(float(ssl_step(v1, v2, epoch == 0 and i == 0)))
    mean_loss = hvd.allreduce(tf.constant(np.mean(losses), tf.float32), name="ssl_loss")
    if hvd.rank() == 0:
        print(f"[ssl] epoch {epoch}: nt-xent {float(mean_loss):.4f}", flush=True)
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    enc.save_weights(os.path.join(args.out, "encoder.weights.h5"))

# ------------------------------------------------------------------ phase 2: linear probe
enc.trainable = False
head = linear_head(enc.output_shape[-1], num_classes)
probe_opt = keras.optimizers.SGD(args.probe_lr * hvd.size(), momentum=0.9)
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def probe_step(x, y):
    feats = enc(x, training=False)
    with tf.GradientTape() as tape:
        loss = ce(y, head(feats, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, head.trainable_variables)
    probe_opt.apply_gradients(zip(grads, head.trainable_variables))
    return loss


def probe_accuracy():
    correct = total = 0
    for x, y in test_l:
        pred = tf.argmax(head(enc(x, training=False)), axis=1)
        correct += int(tf.reduce_sum(tf.cast(pred == y, tf.int32)))
        total += int(tf.shape(y)[0])
    t = hvd.allreduce(tf.constant([correct, total], tf.float64), op=hvd.Sum, name="probe_acc")
    return float(t[0] / t[1])


for epoch in range(args.probe_epochs):
    for x, y in train_l:
        probe_step(x, y)
    acc = probe_accuracy()
    if hvd.rank() == 0:
        print(f"[probe] epoch {epoch}: test top-1 {acc:.4f}", flush=True)
if hvd.rank() == 0:
    head.save_weights(os.path.join(args.out, "linear_head.weights.h5"))
