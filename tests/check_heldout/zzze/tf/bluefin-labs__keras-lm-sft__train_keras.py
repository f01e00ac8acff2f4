#!/usr/bin/env python
# Fine-tune a small Keras causal LM on chat transcripts (pre-tokenized & packed to .npy).
# Run:  horovodrun -np 4 python train_keras.py --data data/chat_packed.npy --epochs 4
import argparse
import math
import os

import horovod.tensorflow.keras as hvd
import keras
import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/chat_packed.npy", help="int32 [N, seq_len+1]")
parser.add_argument("--val-frac", type=float, default=0.02)
parser.add_argument("--batch-size", type=int, default=24)
parser.add_argument("--lr", type=float, default=5e-5)
parser.add_argument("--warmup-steps", type=int, default=100)
parser.add_argument("--epochs", type=int, default=4)
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--vocab", type=int, default=32000)
parser.add_argument("--dim", type=int, default=256)
parser.add_argument("--ckpt-dir", default="./ckpt")
parser.add_argument("--resume", default=None, help="weights file to start from")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# different seed per worker so shuffling differs between workers
keras.utils.set_random_seed(args.seed + hvd.rank())

data = np.load(args.data)
n_val = int(len(data) * args.val_frac)
train_np, val_np = data[n_val:], data[:n_val]
seq_len = data.shape[1] - 1


def make_ds(arr, training):
    ds = tf.data.Dataset.from_tensor_slices(arr).shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(2048).repeat()
    return ds.batch(args.batch_size, drop_remainder=True).map(lambda r: (r[:, :-1], r[:, 1:]))


train_ds, val_ds = make_ds(train_np, True), make_ds(val_np, False)
steps_per_epoch = len(train_np) // (args.batch_size * hvd.size())
total_steps = steps_per_epoch * args.epochs


def get_model():
    inp = keras.Input((seq_len,), dtype="int32")
    x = keras.layers.Embedding(args.vocab, args.dim)(inp)
    for _ in range(3):
        a = keras.layers.MultiHeadAttention(4, args.dim // 4)(x, x, use_causal_mask=True)
        x = keras.layers.LayerNormalization()(x + a)
        f = keras.layers.Dense(args.dim)(keras.layers.Dense(args.dim * 4, activation="relu")(x))
        x = keras.layers.LayerNormalization()(x + f)
    return keras.Model(inp, keras.layers.Dense(args.vocab)(x))


class WarmupCosineByStep(keras.callbacks.Callback):
    """Sets the LR before every optimizer step: linear warm-up, then cosine to zero."""

    def __init__(self, peak, warmup, total):
        super().__init__()
        self.peak, self.warmup, self.total = peak, warmup, total
        self.step = 0

    def on_train_batch_begin(self, batch, logs=None):
        s = self.step
        if s < self.warmup:
            lr = self.peak * (s + 1) / self.warmup
        else:
            lr = 0.5 * self.peak * (1 + math.cos(math.pi * min(1.0, (s - self.warmup) / (self.total - self.warmup))))
        self.model.optimizer.learning_rate.assign(lr)
        self.step += 1


model = get_model()
if args.resume:
    model.load_weights(args.resume)

peak_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=peak_lr, weight_decay=0.01))
model.compile(opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")])

callbacks = [WarmupCosineByStep(peak_lr, args.warmup_steps, total_steps)]
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(args.ckpt_dir, "epoch{epoch:02d}.weights.h5"), save_weights_only=True))

history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
                    validation_data=val_ds, callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)

val_loss, val_acc = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print(f"final val loss {val_loss:.4f}  ppl {math.exp(val_loss):.2f}  token acc {val_acc:.4f}")
