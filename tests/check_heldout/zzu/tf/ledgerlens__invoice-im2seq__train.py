#!/usr/bin/env python
"""Invoice field reader: image crop -> character sequence (attention decoder), Horovod + tf.GradientTape.

Usage:  horovodrun -np 4 python train.py [--config configs/base.json] [--epochs N]
"""
import argparse
import json
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from invoiceocr import CharTokenizer
from invoiceocr.data import list_samples, make_dataset
from invoiceocr.metrics import masked_xent, token_counts
from invoiceocr.model import build_im2seq

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/base.json")
ap.add_argument("--epochs", type=int)
cli = ap.parse_args()
with open(cli.config) as fh:
    cfg = json.load(fh)
dcfg, tcfg = cfg["data"], cfg["train"]
if cli.epochs:
    tcfg["epochs"] = cli.epochs

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_paths, train_texts = list_samples(dcfg["train_list"])
val_paths, val_texts = list_samples(dcfg["val_list"])
tok = CharTokenizer.fit(train_texts + val_texts)
L = dcfg["max_text_len"]
train_ds = make_dataset(train_paths, tok.encode_batch(train_texts, L), dcfg["image_height"], dcfg["image_width"],
                        tcfg["batch_size"], hvd.size(), hvd.rank(), training=True)
val_ds = make_dataset(val_paths, tok.encode_batch(val_texts, L), dcfg["image_height"], dcfg["image_width"],
                      tcfg["batch_size"], hvd.size(), hvd.rank(), training=False)
steps_per_epoch = len(train_paths) // (tcfg["batch_size"] * hvd.size())

model = build_im2seq(tok.vocab_size, dcfg["image_height"], dcfg["image_width"])
optimizer = keras.optimizers.Adam(learning_rate=tcfg["lr"], clipnorm=1.0)


@tf.function
def train_step(inputs, targets, first_batch):
    with tf.GradientTape() as tape:
        loss = masked_xent(targets, model(inputs, training=True), tcfg["label_smoothing"])
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


@tf.function
def eval_step(inputs, targets):
    return token_counts(targets, model(inputs, training=False))


if hvd.rank() == 0:
    os.makedirs(tcfg["output_dir"], exist_ok=True)
    tok.save(os.path.join(tcfg["output_dir"], "charset.json"))

batches = iter(train_ds)
best = 0.0
for epoch in range(tcfg["epochs"]):
    loss_sum = 0.0
    for step in range(steps_per_epoch):
        inputs, targets = next(batches)
        loss_sum += float(train_step(inputs, targets, epoch == 0 and step == 0))
    counts = tf.zeros(4)
    for inputs, targets in val_ds:
        counts += eval_step(inputs, targets)
    counts = hvd.allreduce(counts, op=hvd.Sum, name="val_counts").numpy()
    tok_acc, seq_acc = counts[0] / max(counts[1], 1), counts[2] / max(counts[3], 1)
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{tcfg['epochs']} loss {loss_sum / max(steps_per_epoch, 1):.4f} "
              f"val char acc {tok_acc:.4f} field acc {seq_acc:.4f}", flush=True)
        model.save_weights(os.path.join(tcfg["output_dir"], "last.weights.h5"))
        if seq_acc > best:
            best = seq_acc
            model.save_weights(os.path.join(tcfg["output_dir"], "best.weights.h5"))
