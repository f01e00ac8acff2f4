#!/usr/bin/env python
# Cluster-GAT: GAT trained on random node clusters (Cluster-GCN style batches),
# distributed with Horovod. Each step, a rank trains on the subgraph induced by
# `--clusters-per-batch` clusters; clusters are dealt out to ranks from one shared shuffle.
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
import keras

ap = argparse.ArgumentParser()
ap.add_argument("--graph", default="", help=".npz with src, dst, x, y, train_mask, test_mask")
ap.add_argument("--num-clusters", type=int, default=64)
ap.add_argument("--clusters-per-batch", type=int, default=4)
ap.add_argument("--heads", type=int, default=4)
ap.add_argument("--hidden", type=int, default=16)
ap.add_argument("--lr", type=float, default=5e-3)
ap.add_argument("--epochs", type=int, default=200)
ap.add_argument("--ckpt-dir", default="./ckpt_gat")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load(path):
    if path:
        z = np.load(path)
        return z["src"], z["dst"], z["x"].astype(np.float32), z["y"], z["train_mask"], z["test_mask"]
    rng = np.random.RandomState(3)
    n = 3000
    y = rng.randint(0, 7, n)
    by_class = [np.nonzero(y == c)[0] for c in range(7)]
    src = rng.randint(0, n, 6 * n)
    dst = np.array([rng.choice(by_class[y[s]]) if rng.rand() < 0.7 else rng.randint(n) for s in src])
    x = (np.eye(7)[y] @ rng.randn(7, 32) + rng.randn(n, 32)).astype(np.float32)
    split = rng.rand(n)
    return src, dst, x, y, split < 0.6, split >= 0.8


src, dst, X, Y, train_mask, test_mask = load(args.graph)
N, n_cls = X.shape[0], int(Y.max()) + 1
self_loops = np.arange(N)
src, dst = np.concatenate([src, self_loops]), np.concatenate([dst, self_loops])
cluster_of = np.random.RandomState(0).randint(0, args.num_clusters, N)   # same on every rank


def induced_subgraph(clusters):
    keep = np.isin(cluster_of, clusters)
    nodes = np.nonzero(keep)[0]
    local = -np.ones(N, np.int64)
    local[nodes] = np.arange(len(nodes))
    e = keep[src] & keep[dst]
    return nodes, np.stack([local[src[e]], local[dst[e]]]).astype(np.int32)


class GATLayer(keras.layers.Layer):
    def __init__(self, units, heads, concat=True, **kw):
        super().__init__(**kw)
        self.units, self.heads, self.concat = units, heads, concat

    def build(self, input_shape):
        d = input_shape[-1]
        self.W = self.add_weight(shape=(d, self.heads * self.units), initializer="glorot_uniform", name="W")
        self.a_src = self.add_weight(shape=(self.heads, self.units), initializer="glorot_uniform", name="a_src")
        self.a_dst = self.add_weight(shape=(self.heads, self.units), initializer="glorot_uniform", name="a_dst")

    def call(self, x, edges, training=False):
        n = tf.shape(x)[0]
        h = tf.reshape(tf.matmul(x, self.W), [-1, self.heads, self.units])
        s, d = edges[0], edges[1]
        logits = tf.nn.leaky_relu(tf.reduce_sum(tf.gather(h, s) * self.a_src, -1)
                                  + tf.reduce_sum(tf.gather(h, d) * self.a_dst, -1), 0.2)
        logits -= tf.gather(tf.math.unsorted_segment_max(logits, d, n), d)
        w = tf.exp(logits)
        w /= tf.gather(tf.math.unsorted_segment_sum(w, d, n), d) + 1e-16
        if training:
            w = tf.nn.dropout(w, 0.4)
        out = tf.math.unsorted_segment_sum(tf.gather(h, s) * w[..., None], d, n)
        return tf.reshape(out, [-1, self.heads * self.units]) if self.concat else tf.reduce_mean(out, 1)


class GAT(keras.Model):
    def __init__(self, hidden, heads, n_cls):
        super().__init__()
        self.l1 = GATLayer(hidden, heads)
        self.l2 = GATLayer(n_cls, 1, concat=False)

    def call(self, x, edges, training=False):
        h = tf.nn.elu(self.l1(x, edges, training=training))
        return self.l2(h, edges, training=training)


model = GAT(args.hidden, args.heads, n_cls)
schedule = keras.optimizers.schedules.ExponentialDecay(args.lr * hvd.size(), decay_steps=1000, decay_rate=0.9)
opt = keras.optimizers.Adam(schedule, weight_decay=5e-4)

# build weights and optimizer slots up front, then make every rank start from rank 0's state
model(X[:2], np.zeros((2, 0), np.int32))
opt.build(model.trainable_variables)
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)


@tf.function(reduce_retracing=True)
def train_step(x, edges, y, mask):
    with tf.GradientTape() as tape:
        logits = model(x, edges, training=True)
        loss = tf.reduce_mean(tf.boolean_mask(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), mask))
    tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


full_edges = np.stack([src, dst]).astype(np.int32)
per_step = args.clusters_per_batch * hvd.size()
for epoch in range(args.epochs):
    order = np.random.RandomState(epoch).permutation(args.num_clusters)   # identical on all ranks
    order = order[: len(order) // per_step * per_step]
    mine = order[hvd.rank()::hvd.size()]
    losses = []
    for i in range(0, len(mine), args.clusters_per_batch):
        nodes, edges = induced_subgraph(mine[i:i + args.clusters_per_batch])
        losses.append(float(train_step(X[nodes], edges, Y[nodes], train_mask[nodes])))
    mean_loss = hvd.allreduce(tf.constant(np.mean(losses)), name="train_loss")

    if epoch % 10 == 0 or epoch == args.epochs - 1:
        # whole graph, every rank, same data: rank 0's number is the global one
        pred = tf.argmax(model(X, full_edges, training=False), -1).numpy()
        acc = (pred[test_mask] == Y[test_mask]).mean()
        if hvd.rank() == 0:
            print(f"epoch {epoch:4d} loss {float(mean_loss):.4f} test acc {acc:.4f}")
            manager.save(checkpoint_number=epoch)
