import numpy as np
import tensorflow as tf


def make_frame(n_days=2500, n_feat=5, seed=1):
    rng = np.random.default_rng(seed)
    dates = np.datetime64("2013-01-01") + np.arange(n_days)
    target = np.cumsum(rng.normal(0, 1, n_days)).astype(np.float32)
    feats = np.stack([np.roll(target, k) for k in range(1, n_feat)] + [np.sin(np.arange(n_days) / 7)], 1)
    return dates, target, feats.astype(np.float32)


def split_by_date(dates, cutoff):
    return int(np.searchsorted(dates, np.datetime64(cutoff)))


def windows(target, feats, lo, hi, lookback, horizon, mean, std):
    x = (feats - mean) / std
    t = (target - mean[0]) / std[0]
    xs, ys = [], []
    for i in range(max(lo, lookback), hi - horizon + 1):
        xs.append(x[i - lookback:i])
        ys.append(t[i:i + horizon])
    return np.asarray(xs, np.float32), np.asarray(ys, np.float32)


def build_datasets(cfg, rank, world):
    dates, target, feats = make_frame()
    cut = split_by_date(dates, cfg["cutoff"])
    mean, std = feats[:cut].mean(0), feats[:cut].std(0) + 1e-6   # fitted on the training dates
    xtr, ytr = windows(target, feats, 0, cut, cfg["lookback"], cfg["horizon"], mean, std)
    xva, yva = windows(target, feats, cut - cfg["lookback"], len(target), cfg["lookback"], cfg["horizon"], mean, std)
    steps = len(xtr) // (cfg["batch"] * world)
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr)).shard(world, rank)
             .shuffle(4096, seed=cfg["seed"], reshuffle_each_iteration=True)
             .batch(cfg["batch"], drop_remainder=True).take(steps))
    n_val = len(xva) // world
    val = tf.data.Dataset.from_tensor_slices((xva[rank * n_val:(rank + 1) * n_val],
                                              yva[rank * n_val:(rank + 1) * n_val])).batch(512)
    return train, val, steps
