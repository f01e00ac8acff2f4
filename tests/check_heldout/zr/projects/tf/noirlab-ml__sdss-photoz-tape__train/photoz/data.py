import numpy as np
import tensorflow as tf

MAG_COLS = ["u", "g", "r", "i", "z"]


def features(cat):
    mags = np.stack([cat[c] for c in MAG_COLS], 1)
    colors = mags[:, :-1] - mags[:, 1:]
    return np.concatenate([mags - 20.0, colors, cat["extinction_r"][:, None]], 1).astype("float32")


def split(cfg):
    cat = np.load(cfg.catalog)
    x, z = features(cat), cat["z_spec"].astype("float32")
    keep = (z > 0) & (z < cfg.z_max)
    x, z = x[keep], z[keep]
    rng = np.random.default_rng(cfg.seed)          # same permutation on every rank
    idx = rng.permutation(len(z))
    n_val = int(cfg.val_fraction * len(z))
    return (x[idx[n_val:]], z[idx[n_val:]]), (x[idx[:n_val]], z[idx[:n_val]])


def to_dataset(x, z, batch, num_shards, index, train):
    ds = tf.data.Dataset.from_tensor_slices((x, z)).shard(num_shards, index)
    if train:
        ds = ds.shuffle(50_000, seed=index)
    return ds.batch(batch, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
