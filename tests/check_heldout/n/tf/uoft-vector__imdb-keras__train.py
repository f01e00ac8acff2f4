#!/usr/bin/env python3
"""IMDB sentiment with a small Transformer encoder, Keras 3 + Horovod.

The vocabulary is counted once, on rank 0, and shipped to the other workers.
    horovodrun -np 4 python train_imdb.py --data-dir aclImdb
"""
import argparse
import collections
import glob
import math
import os
import re

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd
from horovod.tensorflow import broadcast_object

TOKEN_RE = re.compile(r"[a-z0-9']+")


def tokenize(text):
    return TOKEN_RE.findall(text.lower().replace("<br />", " "))


def read_split(root, split):
    texts, labels = [], []
    for label, sub in enumerate(("neg", "pos")):
        for path in sorted(glob.glob(os.path.join(root, split, sub, "*.txt"))):
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
            labels.append(label)
    return texts, np.array(labels, dtype=np.int32)


def build_vocab(texts, size):
    counts = collections.Counter(tok for t in texts for tok in tokenize(t))
    return {w: i + 2 for i, (w, _) in enumerate(counts.most_common(size - 2))}  # 0 pad, 1 oov


def encode(texts, vocab, max_len):
    out = np.zeros((len(texts), max_len), dtype=np.int32)
    for i, t in enumerate(texts):
        ids = [vocab.get(w, 1) for w in tokenize(t)][:max_len]
        out[i, :len(ids)] = ids
    return out


class ShardedBatches(keras.utils.PyDataset):
    """Batches of this worker's slice (every size-th example, after a shuffle shared by all workers)."""

    def __init__(self, x, y, batch_size, rank, size, seed=0, shuffle=True, **kwargs):
        super().__init__(**kwargs)
        order = np.random.RandomState(seed).permutation(len(x)) if shuffle else np.arange(len(x))
        mine = order[rank::size]
        self.x, self.y = x[mine], y[mine]
        self.batch_size, self.shuffle = batch_size, shuffle
        self.index = np.arange(len(self.x))

    def __len__(self):
        return len(self.x) // self.batch_size

    def __getitem__(self, i):
        sl = self.index[i * self.batch_size:(i + 1) * self.batch_size]
        return self.x[sl], self.y[sl]

    def on_epoch_end(self):
        if self.shuffle:
            np.random.shuffle(self.index)


class TransformerBlock(layers.Layer):
    def __init__(self, dim, heads, ff, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.att = layers.MultiHeadAttention(num_heads=heads, key_dim=dim // heads)
        self.ffn = keras.Sequential([layers.Dense(ff, activation="gelu"), layers.Dense(dim)])
        self.ln1, self.ln2 = layers.LayerNormalization(), layers.LayerNormalization()
        self.drop1, self.drop2 = layers.Dropout(rate), layers.Dropout(rate)

    def call(self, x, training=False):
        x = self.ln1(x + self.drop1(self.att(x, x), training=training))
        return self.ln2(x + self.drop2(self.ffn(x), training=training))


def build_model(vocab_size, max_len, dim=128, heads=4, ff=256):
    inp = keras.Input((max_len,), dtype="int32")
    tok = layers.Embedding(vocab_size, dim)(inp)
    pos = layers.Embedding(max_len, dim)(keras.ops.arange(max_len))
    x = TransformerBlock(dim, heads, ff)(tok + pos)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.2)(x)
    return keras.Model(inp, layers.Dense(1, activation="sigmoid")(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="aclImdb")
    ap.add_argument("--vocab-size", type=int, default=20000)
    ap.add_argument("--max-len", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--save-to", default="imdb_transformer.keras")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_texts, train_y = read_split(args.data_dir, "train")
    test_texts, test_y = read_split(args.data_dir, "test")
    vocab = build_vocab(train_texts, args.vocab_size) if hvd.rank() == 0 else None
    vocab = broadcast_object(vocab, root_rank=0, name="vocab")
    x_train, x_test = encode(train_texts, vocab, args.max_len), encode(test_texts, vocab, args.max_len)

    train_seq = ShardedBatches(x_train, train_y, args.batch_size, hvd.rank(), hvd.size(), seed=1)
    test_seq = ShardedBatches(x_test, test_y, 128, hvd.rank(), hvd.size(), shuffle=False)

    scaled_lr = args.lr * hvd.size()
    model = build_model(args.vocab_size, args.max_len)
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr)),
                  loss="binary_crossentropy", metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=1,
                                                 steps_per_epoch=len(train_seq)),
    ]
    if hvd.rank() == 0:
        os.makedirs("checkpoints", exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint("checkpoints/imdb-{epoch:02d}.keras"))

    model.fit(train_seq, validation_data=test_seq, epochs=args.epochs, callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)
    loss, acc = model.evaluate(test_seq, verbose=0)
    loss = hvd.allreduce(loss, name="test_loss")
    acc = hvd.allreduce(acc, name="test_acc")
    if hvd.rank() == 0:
        print(f"test loss {float(loss):.4f} acc {float(acc):.4f}")
        model.save(args.save_to)


if __name__ == "__main__":
    main()
