#!/usr/bin/env python3
# IMDB review classification with a 1-layer transformer block.
# Custom training loop (tf.GradientTape) distributed with Horovod.
#
#   horovodrun -np 2 python train_tape.py --epochs 4
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--vocab", type=int, default=20000)
ap.add_argument("--maxlen", type=int, default=200)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--peak-lr", type=float, default=5e-4)
ap.add_argument("--warmup-frac", type=float, default=0.1)
ap.add_argument("--ckpt-dir", default="./ckpt_imdb")
FLAGS = ap.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.experimental.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ---------------------------------------------------------------- data
(x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(num_words=FLAGS.vocab)
x_train = keras.utils.pad_sequences(x_train, maxlen=FLAGS.maxlen)
x_test = keras.utils.pad_sequences(x_test, maxlen=FLAGS.maxlen)

rng = np.random.RandomState(2024)          # same permutation on every worker
perm = rng.permutation(len(x_train))
per_worker = len(perm) // hvd.size()
mine = perm[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
train_ds = (tf.data.Dataset.from_tensor_slices((x_train[mine], y_train[mine]))
            .shuffle(10000, seed=hvd.rank()).batch(FLAGS.batch, drop_remainder=True))
test_ds = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
           .shard(hvd.size(), hvd.rank()).batch(256))
steps_per_epoch = per_worker // FLAGS.batch


# ---------------------------------------------------------------- model
class TransformerBlock(layers.Layer):
    def __init__(self, dim, heads, ff, **kw):
        super().__init__(**kw)
        self.att = layers.MultiHeadAttention(num_heads=heads, key_dim=dim // heads)
        self.ffn = keras.Sequential([layers.Dense(ff, activation="gelu"), layers.Dense(dim)])
        self.ln1 = layers.LayerNormalization(epsilon=1e-6)
        self.ln2 = layers.LayerNormalization(epsilon=1e-6)
        self.drop = layers.Dropout(0.1)

    def call(self, x, training=False):
        x = self.ln1(x + self.drop(self.att(x, x), training=training))
        return self.ln2(x + self.drop(self.ffn(x), training=training))


def build(vocab, maxlen, dim=64):
    ids = keras.Input((maxlen,), dtype="int32")
    tok = layers.Embedding(vocab, dim)(ids)
    pos = layers.Embedding(maxlen, dim)(keras.ops.arange(maxlen))
    h = TransformerBlock(dim, 4, 128)(tok + pos)
    h = layers.GlobalAveragePooling1D()(h)
    return keras.Model(ids, layers.Dense(2)(layers.Dropout(0.1)(h)))


class WarmupLinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, total):
        self.peak, self.warmup, self.total = peak, float(warmup), float(total)

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * (step + 1.0) / self.warmup
        decay = self.peak * tf.maximum(0.0, (self.total - step) / (self.total - self.warmup))
        return tf.where(step < self.warmup, warm, decay)

    def get_config(self):
        return {"peak": self.peak, "warmup": self.warmup, "total": self.total}


model = build(FLAGS.vocab, FLAGS.maxlen)
total_steps = steps_per_epoch * FLAGS.epochs
lr = WarmupLinearDecay(FLAGS.peak_lr * hvd.size(), max(1, int(FLAGS.warmup_frac * total_steps)), total_steps)
optimizer = keras.optimizers.AdamW(learning_rate=lr, weight_decay=0.01)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt_dir, max_to_keep=2)
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


def evaluate():
    tp = fp = fn = correct = n = 0.0
    for x, y in test_ds:
        pred = tf.argmax(model(x, training=False), axis=-1, output_type=tf.int32)
        y = tf.cast(y, tf.int32)
        tp += float(tf.reduce_sum(tf.cast((pred == 1) & (y == 1), tf.float32)))
        fp += float(tf.reduce_sum(tf.cast((pred == 1) & (y == 0), tf.float32)))
        fn += float(tf.reduce_sum(tf.cast((pred == 0) & (y == 1), tf.float32)))
        correct += float(tf.reduce_sum(tf.cast(pred == y, tf.float32)))
        n += float(tf.size(y))
    tot = hvd.allreduce(tf.constant([tp, fp, fn, correct, n]), op=hvd.Sum, name="eval_counts").numpy()
    tp, fp, fn, correct, n = tot
    f1 = 2 * tp / max(1.0, 2 * tp + fp + fn)
    return correct / n, f1


start = hvd.broadcast_object(int(ckpt.epoch.numpy()), root_rank=0, name="start_epoch")
for epoch in range(start, FLAGS.epochs):
    for step, (x, y) in enumerate(train_ds):
        loss = train_step(x, y, tf.constant(epoch == start and step == 0))
        if step % 100 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {loss.numpy():.4f}")
    acc, f1 = evaluate()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: test acc {acc:.4f}  F1 {f1:.4f}")
        ckpt.epoch.assign(epoch + 1)
        manager.save()
