"""Character-level seq2seq (GRU encoder / decoder) for date normalisation.

Single-GPU version by M.K., ported to Horovod for the cluster runs.
    horovodrun -np 8 python 01_seq2seq_tape.py --data data/dates.tsv
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/dates.tsv")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--units", type=int, default=256)
parser.add_argument("--ckpt-dir", default="./ckpt_seq2seq")
args = parser.parse_args()

hvd.init()

# one process per GPU
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.rank()], "GPU")

PAD, SOS, EOS = 0, 1, 2


def load_pairs(path):
    src, tgt = [], []
    with open(path) as f:
        for line in f:
            a, b = line.rstrip("\n").split("\t")
            src.append(a)
            tgt.append(b)
    return src, tgt


def build_vocab(strings):
    chars = sorted(set("".join(strings)))
    return {c: i + 3 for i, c in enumerate(chars)}


def encode(strings, vocab, maxlen):
    out = np.zeros((len(strings), maxlen), dtype=np.int32)
    for i, s in enumerate(strings):
        ids = [SOS] + [vocab[c] for c in s][: maxlen - 2] + [EOS]
        out[i, : len(ids)] = ids
    return out


src, tgt = load_pairs(args.data)
src_vocab, tgt_vocab = build_vocab(src), build_vocab(tgt)
X = encode(src, src_vocab, 40)
Y = encode(tgt, tgt_vocab, 14)
n_val = len(X) // 10
X_train, Y_train, X_val, Y_val = X[n_val:], Y[n_val:], X[:n_val], Y[:n_val]

train_ds = (tf.data.Dataset.from_tensor_slices((X_train, Y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000, reshuffle_each_iteration=True)
            .batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((X_val, Y_val))
          .shard(hvd.size(), hvd.rank())
          .batch(args.batch_size))


class Encoder(tf.keras.Model):
    def __init__(self, vocab_size, units):
        super().__init__()
        self.emb = tf.keras.layers.Embedding(vocab_size, 64, mask_zero=True)
        self.gru = tf.keras.layers.GRU(units, return_state=True)

    def call(self, x):
        _, state = self.gru(self.emb(x))
        return state


class Decoder(tf.keras.Model):
    def __init__(self, vocab_size, units):
        super().__init__()
        self.emb = tf.keras.layers.Embedding(vocab_size, 64)
        self.gru = tf.keras.layers.GRU(units, return_sequences=True)
        self.out = tf.keras.layers.Dense(vocab_size)

    def call(self, y_in, state):
        h = self.gru(self.emb(y_in), initial_state=state)
        return self.out(h)


encoder = Encoder(len(src_vocab) + 3, args.units)
decoder = Decoder(len(tgt_vocab) + 3, args.units)
opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


def masked_loss(y_true, logits):
    mask = tf.cast(tf.not_equal(y_true, PAD), tf.float32)
    per_tok = loss_obj(y_true, logits) * mask
    return tf.reduce_sum(per_tok) / tf.maximum(tf.reduce_sum(mask), 1.0)


@tf.function
def train_step(x, y, first_batch):
    y_in, y_out = y[:, :-1], y[:, 1:]
    with tf.GradientTape() as tape:
        state = encoder(x)
        logits = decoder(y_in, state)
        loss = masked_loss(y_out, logits)
    tape = hvd.DistributedGradientTape(tape)
    variables = encoder.trainable_variables + decoder.trainable_variables
    grads = tape.gradient(loss, variables)
    opt.apply_gradients(zip(grads, variables))
    if first_batch:
        hvd.broadcast_variables(encoder.variables, root_rank=0)
        hvd.broadcast_variables(decoder.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables(), root_rank=0)
    return loss


@tf.function
def eval_step(x, y):
    logits = decoder(y[:, :-1], encoder(x))
    return masked_loss(y[:, 1:], logits)


ckpt = tf.train.Checkpoint(encoder=encoder, decoder=decoder, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

global_step = 0
for epoch in range(args.epochs):
    t0 = time.time()
    train_loss = tf.keras.metrics.Mean()
    for x, y in train_ds:
        loss = train_step(x, y, global_step == 0)
        train_loss.update_state(loss)
        global_step += 1

    val_loss = tf.keras.metrics.Mean()
    for x, y in val_ds:
        val_loss.update_state(eval_step(x, y))
    avg_train = hvd.allreduce(train_loss.result(), name="train_loss")
    avg_val = hvd.allreduce(val_loss.result(), name="val_loss")

    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: train {avg_train:.4f} val {avg_val:.4f} "
              f"({time.time() - t0:.1f}s)")
        manager.save(checkpoint_number=epoch)
