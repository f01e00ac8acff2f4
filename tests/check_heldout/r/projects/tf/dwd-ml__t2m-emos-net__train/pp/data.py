"""Reads the station table written by our NetCDF -> npz converter:
x (N, F) float32 ensemble mean/std + covariates, station (N,) int32, y (N,) observed t2m, year (N,) int."""
import numpy as np
import tensorflow as tf

VAL_YEAR = 2021


def make_datasets(path, batch, rank, size, seed=42):
    z = np.load(path)
    x, sid, y, year = z["x"].astype("float32"), z["station"].astype("int32"), z["y"].astype("float32"), z["year"]
    mean, std = x[year != VAL_YEAR].mean(0), x[year != VAL_YEAR].std(0) + 1e-6
    x = (x - mean) / std
    tr, va = year != VAL_YEAR, year == VAL_YEAR
    n_tr, n_va = int(tr.sum()), int(va.sum())

    # shard first (disjoint parts per rank), then shuffle inside the shard
    train = tf.data.Dataset.from_tensor_slices((x[tr], sid[tr], y[tr])).shard(size, rank)
    train = train.shuffle(100_000, seed=seed + rank).repeat().batch(batch, drop_remainder=True)
    val = tf.data.Dataset.from_tensor_slices((x[va], sid[va], y[va])).shard(size, rank)
    val = val.batch(batch, drop_remainder=True)
    # the same number of full batches on every rank
    steps = n_tr // (size * batch)
    val_steps = n_va // (size * batch)
    n_stations = int(sid.max()) + 1
    return train.prefetch(2), val, n_stations, x.shape[1], steps, val_steps
