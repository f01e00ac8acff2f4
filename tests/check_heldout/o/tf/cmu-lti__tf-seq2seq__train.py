"""Character-level GRU seq2seq with Bahdanau attention (transliteration), TF2 custom loop + Horovod.

Data: tab-separated `source<TAB>target` lines.  Run:  horovodrun -np 4 python train.py --train data/train.tsv
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--train", default="data/train.tsv")
ap.add_argument("--dev", default="data/dev.tsv")
ap.add_argument("--max-len", type=int, default=32)
ap.add_argument("--emb", type=int, default=128)
ap.add_argument("--hidden", type=int, default=256)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--clip-norm", type=float, default=5.0)
ap.add_argument("--ckpt-dir", default="ckpt_seq2seq")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

PAD, BOS, EOS = 0, 1, 2


def read_pairs(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t")[:2] for l in f if "\t" in l]


train_pairs, dev_pairs = read_pairs(args.train), read_pairs(args.dev)
chars = sorted({c for s, t in train_pairs for c in s + t})
vocab = {c: i + 3 for i, c in enumerate(chars)}
V = len(vocab) + 3


def encode(text):
    ids = [BOS] + [vocab.get(c, PAD) for c in text[: args.max_len - 2]] + [EOS]
    return ids + [PAD] * (args.max_len - len(ids))


def to_arrays(pairs):
    return (np.array([encode(s) for s, _ in pairs], np.int32), np.array([encode(t) for _, t in pairs], np.int32))


train_ds = tf.data.Dataset.from_tensor_slices(to_arrays(train_pairs)) \
    .shuffle(10000).batch(args.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
dev_ds = tf.data.Dataset.from_tensor_slices(to_arrays(dev_pairs)) \
    .shard(hvd.size(), hvd.rank()).batch(args.batch_size)


class Seq2Seq(keras.Model):
    def __init__(self, vocab_size, emb, hidden):
        super().__init__()
        self.src_emb = keras.layers.Embedding(vocab_size, emb)
        self.tgt_emb = keras.layers.Embedding(vocab_size, emb)
        self.encoder = keras.layers.Bidirectional(keras.layers.GRU(hidden // 2, return_sequences=True))
        self.decoder = keras.layers.GRU(hidden, return_sequences=True)
        self.attn = keras.layers.AdditiveAttention()
        self.proj = keras.layers.Dense(vocab_size)

    def call(self, inputs, training=False):
        src, tgt_in = inputs
        enc = self.encoder(self.src_emb(src), training=training)
        dec = self.decoder(self.tgt_emb(tgt_in), training=training)
        ctx = self.attn([dec, enc])
        return self.proj(tf.concat([dec, ctx], -1))


model = Seq2Seq(V, args.emb, args.hidden)
optimizer = keras.optimizers.Adam(args.lr * hvd.size(), global_clipnorm=args.clip_norm)
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(optimizer.variables, root_rank=0)

loss_obj = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


def masked_loss(tgt_out, logits):
    mask = tf.cast(tf.not_equal(tgt_out, PAD), tf.float32)
    return tf.reduce_sum(loss_obj(tgt_out, logits) * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)


@tf.function
def train_step(src, tgt):
    with tf.GradientTape() as tape:
        logits = model([src, tgt[:, :-1]], training=True)
        loss = masked_loss(tgt[:, 1:], logits)
    dist_tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def eval_step(src, tgt):
    logits = model([src, tgt[:, :-1]], training=False)
    mask = tf.cast(tf.not_equal(tgt[:, 1:], PAD), tf.float32)
    nll = tf.reduce_sum(loss_obj(tgt[:, 1:], logits) * mask)
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32), tgt[:, 1:]), tf.float32) * mask)
    return nll, correct, tf.reduce_sum(mask)


ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
best = np.inf
for epoch in range(args.epochs):
    t0, tot, n = time.time(), 0.0, 0
    for src, tgt in train_ds:
        tot += float(train_step(src, tgt))
        n += 1
    sums = np.zeros(3, np.float32)
    for src, tgt in dev_ds:
        sums += np.array([float(v) for v in eval_step(src, tgt)], np.float32)
    sums = hvd.allreduce(tf.constant(sums), op=hvd.Sum, name="dev_sums").numpy()
    dev_loss, dev_acc = sums[0] / sums[2], sums[1] / sums[2]
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1} train {tot / max(n, 1):.4f} dev loss {dev_loss:.4f} "
              f"char acc {dev_acc:.4f} ({time.time() - t0:.0f}s)")
        if dev_loss < best:
            best = dev_loss
            ckpt.write(os.path.join(args.ckpt_dir, "best"))
