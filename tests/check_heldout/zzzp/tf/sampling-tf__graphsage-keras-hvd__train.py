"""
GraphSAGE (mean aggregator, 2 hops) in Keras with a python neighbour sampler.
The graph (CSR) is loaded on every worker; the labelled nodes are divided between workers.

usage: horovodrun -np 4 -H host1:2,host2:2 python train.py --epochs 10
"""
import argparse
import math
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--graph-npz", default="reddit_csr.npz")
parser.add_argument("--num-nodes", type=int, default=232965)
parser.add_argument("--feat-dim", type=int, default=602)
parser.add_argument("--num-classes", type=int, default=41)
parser.add_argument("--fanout", type=str, default="25,10")
parser.add_argument("--batch-size", type=int, default=512)
parser.add_argument("--hidden", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--ckpt-dir", default="ckpt_sage")
args = parser.parse_args()

hvd.init()

# Horovod: pin GPU to be used to process local rank (one GPU per process)
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.rank()], "GPU")

if os.path.exists(args.graph_npz):
    G = np.load(args.graph_npz)
    indptr, indices, feats, labels = G["indptr"], G["indices"], G["feats"], G["labels"]
    train_nodes, val_nodes = G["train"], G["val"]
else:
    rng = np.random.default_rng(7)
    N = args.num_nodes
    deg = rng.integers(1, 30, N)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    indices = rng.integers(0, N, indptr[-1])
    feats = rng.standard_normal((N, args.feat_dim), dtype=np.float32)
    labels = rng.integers(0, args.num_classes, N)
    perm = rng.permutation(N)
    train_nodes, val_nodes = perm[: int(0.66 * N)], perm[int(0.66 * N): int(0.76 * N)]

f1, f2 = [int(v) for v in args.fanout.split(",")]


def sample(nodes, k, rng):
    start, end = indptr[nodes], indptr[nodes + 1]
    off = (rng.random((len(nodes), k)) * (end - start)[:, None]).astype(np.int64)
    return indices[start[:, None] + off]


class SageSequence(keras.utils.PyDataset):
    """batches of (self feats, 1-hop feats, 2-hop feats) for a fixed set of seed nodes"""

    def __init__(self, nodes, batch_size, shuffle, seed, **kw):
        super().__init__(**kw)
        self.nodes = np.array(nodes)
        self.bs = batch_size
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        self.on_epoch_end()

    def __len__(self):
        return math.ceil(len(self.nodes) / self.bs)

    def on_epoch_end(self):
        if self.shuffle:
            self.rng.shuffle(self.nodes)

    def __getitem__(self, i):
        seeds = self.nodes[i * self.bs:(i + 1) * self.bs]
        n1 = sample(seeds, f1, self.rng)                      # (B, f1)
        n2 = sample(n1.reshape(-1), f2, self.rng)             # (B*f1, f2)
        x0 = feats[seeds]
        x1 = feats[n1]                                        # (B, f1, F)
        x2 = feats[n2].reshape(len(seeds), f1, f2, -1)        # (B, f1, f2, F)
        return (x0, x1, x2), labels[seeds]


class MeanSage(keras.layers.Layer):
    def __init__(self, units, act="relu", **kw):
        super().__init__(**kw)
        self.ws = keras.layers.Dense(units)
        self.wn = keras.layers.Dense(units, use_bias=False)
        self.act = keras.activations.get(act)

    def call(self, h_self, h_nbrs):
        return self.act(self.ws(h_self) + self.wn(tf.reduce_mean(h_nbrs, axis=-2)))


x0 = keras.Input((args.feat_dim,))
x1 = keras.Input((f1, args.feat_dim))
x2 = keras.Input((f1, f2, args.feat_dim))
l1 = MeanSage(args.hidden)
h1_self = l1(x0, x1)        # hop-1 repr of the seeds
h1_nbrs = l1(x1, x2)        # hop-1 repr of the neighbours
h2 = MeanSage(args.hidden)(h1_self, h1_nbrs)
h2 = keras.layers.UnitNormalization()(h2)
out = keras.layers.Dense(args.num_classes)(h2)
model = keras.Model([x0, x1, x2], out)

opt = keras.optimizers.Adam(learning_rate=args.lr)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

my_train = train_nodes[hvd.rank()::hvd.size()]
my_val = val_nodes[hvd.rank()::hvd.size()]
train_seq = SageSequence(my_train, args.batch_size, shuffle=True, seed=hvd.rank())
val_seq = SageSequence(my_val, args.batch_size, shuffle=False, seed=0)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "sage-{epoch:02d}.weights.h5"),
                                                     save_weights_only=True))

steps = len(my_train) // args.batch_size
model.fit(train_seq, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_seq,
          validation_steps=len(my_val) // args.batch_size, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)
