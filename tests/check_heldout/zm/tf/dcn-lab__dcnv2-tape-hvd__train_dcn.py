#!/usr/bin/env python3
"""DCN-v2 (deep & cross network) for CTR, custom training loop with horovod.tensorflow.

The global batch is fixed (--global-batch) and split across workers, so the
learning rate is the single-GPU one no matter how many workers run.
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/ctr_small.npz")
    p.add_argument("--global-batch", type=int, default=8192)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--cross-layers", type=int, default=3)
    p.add_argument("--embed-dim", type=int, default=16)
    p.add_argument("--ckpt-dir", default="ckpt_dcn")
    return p.parse_args()


class CrossLayer(tf.keras.layers.Layer):
    def build(self, shape):
        d = int(shape[-1])
        self.w = self.add_weight(name="w", shape=(d, d), initializer="glorot_uniform")
        self.b = self.add_weight(name="b", shape=(d,), initializer="zeros")

    def call(self, x0, x):
        return x0 * (tf.matmul(x, self.w) + self.b) + x


class DCNv2(tf.keras.Model):
    def __init__(self, vocab_sizes, embed_dim, n_cross):
        super().__init__()
        self.embeddings = [tf.keras.layers.Embedding(v, embed_dim) for v in vocab_sizes]
        self.cross = [CrossLayer() for _ in range(n_cross)]
        self.deep = tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu"),
                                         tf.keras.layers.Dense(128, activation="relu")])
        self.out = tf.keras.layers.Dense(1)

    def call(self, dense, cat, training=False):
        embs = [emb(cat[:, i]) for i, emb in enumerate(self.embeddings)]
        x0 = tf.concat([dense] + embs, axis=1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        return tf.squeeze(self.out(tf.concat([x, self.deep(x0, training=training)], axis=1)), -1)


def auc(labels, scores):
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), len(labels) - pos.sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / max(n_pos * n_neg, 1)


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    z = np.load(args.data)
    dense, cat, y = z["dense"].astype("float32"), z["cat"].astype("int64"), z["y"].astype("float32")
    vocab_sizes = [int(v) for v in z["vocab_sizes"]]
    n_val = len(y) // 10
    val = (dense[:n_val], cat[:n_val], y[:n_val])

    # identical shuffle on every worker, then contiguous equal blocks
    order = np.random.RandomState(2024).permutation(np.arange(n_val, len(y)))
    block = len(order) // hvd.size()
    mine = order[hvd.rank() * block:(hvd.rank() + 1) * block]
    local_batch = args.global_batch // hvd.size()
    train_ds = (tf.data.Dataset.from_tensor_slices((dense[mine], cat[mine], y[mine]))
                .shuffle(len(mine), seed=hvd.rank()).batch(local_batch, drop_remainder=True))

    model = DCNv2(vocab_sizes, args.embed_dim, args.cross_layers)
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr)
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    @tf.function
    def step(d, c, t):
        with tf.GradientTape() as tape:
            loss = bce(t, model(d, c, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt, epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)

    first = True
    for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
        t0, losses = time.time(), []
        for d, c, t in train_ds:
            losses.append(step(d, c, t))
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
                first = False
        train_loss = hvd.allreduce(tf.reduce_mean(losses), name="train_loss")

        # every worker scores its slice of the validation set; AUC over the gathered scores
        lo, hi = np.array_split(np.arange(n_val), hvd.size())[hvd.rank()][[0, -1]]
        scores = tf.sigmoid(model(val[0][lo:hi + 1], val[1][lo:hi + 1]))
        all_scores = hvd.allgather(scores).numpy()
        all_labels = hvd.allgather(tf.constant(val[2][lo:hi + 1])).numpy()
        ckpt.epoch.assign(epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch} train_loss {float(train_loss):.4f} "
                  f"val_auc {auc(all_labels, all_scores):.4f} {time.time() - t0:.1f}s")
            manager.save()


if __name__ == "__main__":
    main()
