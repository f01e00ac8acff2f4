"""County-level yield table -> tf.data. Rows are split between workers by position."""
import csv

import numpy as np
import tensorflow as tf

WEATHER = [f"{v}_{m:02d}" for v in ("tmax", "tmin", "prcp", "srad") for m in range(4, 10)]
SOIL = ["awc", "clay", "sand", "om", "ph"]
TARGET = "yield_bu_ac"


def read_table(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: (r["fips"], int(r["year"])))
    x = np.array([[float(r[c]) for c in WEATHER + SOIL] for r in rows], dtype=np.float32)
    y = np.array([float(r[TARGET]) for r in rows], dtype=np.float32)
    years = np.array([int(r["year"]) for r in rows])
    return x, y, years


def split_by_year(x, y, years, holdout_years):
    mask = np.isin(years, holdout_years)
    return (x[~mask], y[~mask]), (x[mask], y[mask])


def normalizer(x_train):
    mean, std = x_train.mean(0), x_train.std(0) + 1e-6
    return lambda x: (x - mean) / std


def train_dataset(x, y, batch_size, rank, size, seed):
    xs, ys = x[rank::size], y[rank::size]
    ds = tf.data.Dataset.from_tensor_slices((xs, ys))
    return ds.shuffle(len(xs), seed=seed).repeat().batch(batch_size), len(xs)


def eval_dataset(x, y, batch_size):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
