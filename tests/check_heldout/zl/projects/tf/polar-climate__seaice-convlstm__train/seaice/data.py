import glob
import os

import numpy as np
import tensorflow as tf

from . import settings


def load_months(split):
    files = sorted(glob.glob(os.path.join(settings.DATA_DIR, split, "sic_*.npz")))
    sic = np.stack([np.load(f)["sic"] for f in files]).astype(np.float32) / 100.0
    land = np.load(os.path.join(settings.DATA_DIR, "land_mask.npz"))["mask"].astype(np.float32)
    return np.nan_to_num(sic)[..., None], land


def windows(sic, lookback, lead):
    starts = np.arange(len(sic) - lookback - lead + 1)
    x = np.stack([sic[s:s + lookback] for s in starts])
    y = np.stack([sic[s + lookback:s + lookback + lead, ..., 0] for s in starts])
    return x, np.moveaxis(y, 1, -1)


def make_ds(split, rank, size, training):
    sic, land = load_months(split)
    x, y = windows(sic, settings.LOOKBACK, settings.LEAD)
    n = len(x) // size
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).take(n)
    if training:
        ds = ds.shuffle(n, seed=rank).repeat()
    return ds.batch(settings.BATCH_PER_GPU).prefetch(2), n, land
