import glob
import os

import numpy as np
import tensorflow as tf


def _read_tiles(pattern):
    xs, ys = [], []
    for path in sorted(glob.glob(pattern)):
        with np.load(path) as f:
            xs.append(f["image"].astype(np.float32) / 255.0)
            ys.append(f["mask"].astype(np.int32))
    return np.concatenate(xs), np.concatenate(ys)


def count_tiles(data_dir, split):
    n = 0
    for path in glob.glob(os.path.join(data_dir, split, "*.npz")):
        with np.load(path) as f:
            n += f["mask"].shape[0]
    return n


def make_dataset(data_dir, split, per_replica_batch, ctx, augment=False):
    x, y = _read_tiles(os.path.join(data_dir, split, "*.npz"))
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    if augment:
        ds = ds.shuffle(2048).map(
            lambda a, b: (tf.image.random_brightness(a, 0.1), b),
            num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(per_replica_batch, drop_remainder=True)
    if split == "train":
        ds = ds.repeat()
    return ds.prefetch(tf.data.AUTOTUNE)
