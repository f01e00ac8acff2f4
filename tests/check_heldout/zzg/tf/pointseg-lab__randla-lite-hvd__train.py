"""RandLA-lite: per-point semantic segmentation of outdoor scans (S3DIS/SemanticKITTI blocks).

Blocks are pre-cut to fixed-size point sets and stored as blocks_{train,val}.npz (xyz, rgb, label).
    horovodrun -np 8 python train.py --data /data/s3dis_blocks --npoints 4096
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/s3dis_blocks")
parser.add_argument("--npoints", type=int, default=4096)
parser.add_argument("--knn", type=int, default=16)
parser.add_argument("--classes", type=int, default=13)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--warmup-epochs", type=int, default=2)
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--logdir", default="logs/randla")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load_blocks(split, num_points):
    z = np.load(os.path.join(args.data, f"blocks_{split}.npz"))
    feats = np.concatenate([z["xyz"], z["rgb"] / 255.0], axis=-1).astype(np.float32)
    labels = z["label"].astype(np.int32)
    if feats.shape[1] > num_points:               # random subset of points per block
        keep = np.sort(np.random.RandomState(0).choice(feats.shape[1], num_points, replace=False))
        feats, labels = feats[:, keep], labels[:, keep]
    return feats, labels


class LocalFeatureAggregation(keras.layers.Layer):
    """kNN neighbourhood encoding + attentive pooling (simplified RandLA-Net block)."""

    def __init__(self, units, k, **kw):
        super().__init__(**kw)
        self.k = k
        self.pos_mlp = keras.layers.Dense(units, activation="relu")
        self.feat_mlp = keras.layers.Dense(units, activation="relu")
        self.score = keras.layers.Dense(units, use_bias=False)
        self.out = keras.layers.Dense(units, activation="relu")

    def call(self, xyz, feats):
        sq = tf.reduce_sum(xyz ** 2, -1, keepdims=True)
        d = sq - 2 * tf.matmul(xyz, xyz, transpose_b=True) + tf.transpose(sq, [0, 2, 1])
        idx = tf.math.top_k(-d, self.k).indices
        nb_xyz = tf.gather(xyz, idx, batch_dims=1)
        rel = nb_xyz - xyz[:, :, None]
        pos = self.pos_mlp(tf.concat([rel, tf.norm(rel, axis=-1, keepdims=True)], -1))
        nb = tf.concat([self.feat_mlp(tf.gather(feats, idx, batch_dims=1)), pos], -1)
        att = tf.nn.softmax(self.score(nb), axis=2)
        return self.out(tf.reduce_sum(att * nb[..., : att.shape[-1]], axis=2))


def build(num_points, k, n_cls):
    inp = keras.Input((num_points, 6))
    xyz = inp[..., :3]
    h = keras.layers.Dense(32, activation="relu")(inp)
    skips = []
    for units in (32, 64, 128):
        h = LocalFeatureAggregation(units, k)(xyz, h)
        skips.append(h)
    h = keras.layers.Concatenate()(skips)
    h = keras.layers.Dense(64, activation="relu")(h)
    return keras.Model(inp, keras.layers.Dense(n_cls)(keras.layers.Dropout(0.5)(h)))


x_train, y_train = load_blocks("train", args.num_points)
x_val, y_val = load_blocks("val", args.num_points)

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(len(x_train))
            .shard(hvd.size(), hvd.rank())
            .repeat()
            .batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_val, y_val))
          .shard(hvd.size(), hvd.rank())
          .repeat()
          .batch(args.batch_size, drop_remainder=True))

steps_per_epoch = len(x_train) // (args.batch_size * hvd.size())
val_steps = max(1, len(x_val) // (args.batch_size * hvd.size()))
scaled_lr = args.lr * hvd.size()

model = build(x_train.shape[1], args.knn, args.classes)
model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr)),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                             steps_per_epoch=steps_per_epoch, verbose=1),
]
if hvd.rank() == 0:
    os.makedirs(args.logdir, exist_ok=True)
    callbacks += [keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, "ckpt-{epoch:03d}.keras")),
                  keras.callbacks.TensorBoard(args.logdir)]

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
          validation_data=val_ds, validation_steps=val_steps,
          callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
