import csv

import numpy as np
import tensorflow as tf

META_COLS = ["Subject Focus", "Eyes", "Face", "Near", "Action", "Accessory",
             "Group", "Collage", "Human", "Occlusion", "Info", "Blur"]


def load_split(csv_path, img_npy):
    with open(csv_path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    meta = np.array([[float(r[c]) for c in META_COLS] for r in rows], dtype=np.float32)
    y = np.array([float(r.get("Pawpularity", 0.0)) for r in rows], dtype=np.float32) / 100.0
    ids = [r["Id"] for r in rows]
    return ids, np.load(img_npy), meta, y


def stratified_folds(y, n_splits=5, n_bins=14, seed=1234):
    """Sturges-rule bins of the target, then round-robin within bins (StratifiedKFold stand-in)."""
    bins = np.digitize(y, np.linspace(y.min(), y.max(), n_bins + 1)[1:-1])
    order = np.lexsort((np.random.RandomState(seed).rand(len(y)), bins))
    folds = np.empty(len(y), dtype=np.int64)
    folds[order] = np.arange(len(y)) % n_splits
    return folds


def make_ds(img, meta, y, batch, training, shard=None):
    ds = tf.data.Dataset.from_tensor_slices(((img, meta), y))
    if shard is not None:
        ds = ds.shard(*shard)
    ds = ds.map(lambda a, t: ((tf.cast(a[0], tf.float32) / 255.0, a[1]), t))
    if training:
        ds = ds.shuffle(1024).map(lambda a, t: ((tf.image.random_flip_left_right(a[0]), a[1]), t))
    return ds.repeat().batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
