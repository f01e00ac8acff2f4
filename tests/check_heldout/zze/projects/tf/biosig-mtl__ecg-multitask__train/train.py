# ECG superclass classification (PTB-XL style) with an auxiliary reconstruction loss.
# The reconstruction weight is annealed from --recon-w to 0 over training.
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from ecgmtl import distributed as dist
from ecgmtl.data import load_split, pipeline
from ecgmtl.metrics import counts, f1_from_counts
from ecgmtl.model import ecg_multitask

parser = argparse.ArgumentParser()
parser.add_argument("--root", default="/scratch/ptbxl_npy")
parser.add_argument("--batch", type=int, default=128)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--recon-w", type=float, default=0.5)
parser.add_argument("--ckpt", default="checkpoints/ecg_mtl")
args = parser.parse_args()

dist.init()
x_tr, y_tr = load_split(args.root, "train")
x_va, y_va = load_split(args.root, "val")
train_ds = pipeline(x_tr, y_tr, args.batch, hvd.rank(), hvd.size(), train=True)
val_ds = pipeline(x_va, y_va, 512, hvd.rank(), hvd.size(), train=False)
steps_per_epoch = len(x_tr) // (args.batch * hvd.size())

model = ecg_multitask(length=x_tr.shape[1], leads=x_tr.shape[2], n_classes=y_tr.shape[1])
optimizer = keras.optimizers.AdamW(learning_rate=args.lr * hvd.size(), weight_decay=1e-4)
recon_w = tf.Variable(args.recon_w, trainable=False)
bce = keras.losses.BinaryCrossentropy(from_logits=True)

checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
dist.sync_initial_state(model, optimizer)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        out = model(x, training=True)
        l_diag = bce(y, out["diag"])
        l_recon = tf.reduce_mean(tf.square(out["recon"] - x))
        loss = l_diag + recon_w * l_recon
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return l_diag, l_recon


it = iter(train_ds)
for epoch in range(args.epochs):
    recon_w.assign(args.recon_w * (1.0 - epoch / args.epochs))
    diag_sum = recon_sum = 0.0
    for _ in range(steps_per_epoch):
        l_diag, l_recon = train_step(*next(it))
        diag_sum += float(l_diag)
        recon_sum += float(l_recon)

    c = np.zeros((3, y_va.shape[1]), np.float32)
    for x, y in val_ds:
        c += counts(model(x, training=False)["diag"].numpy(), y.numpy())
    c = hvd.allreduce(tf.constant(c), op=hvd.Sum, name="val_counts").numpy()
    macro_f1 = float(np.mean(f1_from_counts(*c)))
    train_diag = dist.average(diag_sum / steps_per_epoch, "train_diag")

    if dist.is_master():
        print(f"[{epoch:02d}] diag {train_diag:.4f} recon {recon_sum / steps_per_epoch:.4f} "
              f"(w={float(recon_w):.3f}) val macro-F1 {macro_f1:.4f}")
        os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
        checkpoint.write(args.ckpt)
