import numpy as np
import tensorflow as tf


def load_mid_prices(pair, n=40000, seed=9):
    """Log mid-price path; replace with the broker export for `pair`."""
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.normal(0, 2e-4, n)).astype(np.float32) + np.log(1.08)


def to_windows(logp, enc_len, dec_len, mean, std):
    r = (np.diff(logp) - mean) / std
    n = len(r) - enc_len - dec_len + 1
    idx = np.arange(enc_len + dec_len)[None] + np.arange(0, n, 4)[:, None]
    w = r[idx].astype(np.float32)[..., None]
    enc, target = w[:, :enc_len], w[:, enc_len:]
    dec_in = np.concatenate([enc[:, -1:], target[:, :-1]], axis=1)   # shifted target (teacher input)
    return enc, dec_in, target


def make_datasets(cfg, rank, world):
    logp = load_mid_prices(cfg["pair"])
    per_day = 24 * 60 // cfg["freq_minutes"]
    cut = len(logp) - cfg["val_days"] * per_day
    r_train = np.diff(logp[:cut])
    mean, std = float(r_train.mean()), float(r_train.std() + 1e-12)
    tr = to_windows(logp[:cut], cfg["enc_len"], cfg["dec_len"], mean, std)
    va = to_windows(logp[cut - cfg["enc_len"]:], cfg["enc_len"], cfg["dec_len"], mean, std)
    n_tr = len(tr[0]) // world * world
    n_va = len(va[0]) // world * world
    train = (tf.data.Dataset.from_tensor_slices(((tr[0][:n_tr], tr[1][:n_tr]), tr[2][:n_tr]))
             .shard(world, rank).shuffle(5000).batch(cfg["batch_size"], drop_remainder=True))
    val = (tf.data.Dataset.from_tensor_slices(((va[0][:n_va], va[1][:n_va]), va[2][:n_va]))
           .shard(world, rank).batch(256))
    return train, val
