import numpy as np
import pandas as pd
import tensorflow as tf

CATS = ["store", "item", "dow", "month"]


def load(path, valid_days):
    df = pd.read_csv(path, parse_dates=["date"])
    df["dow"] = df.date.dt.dayofweek
    df["month"] = df.date.dt.month
    df["sales"] = np.log1p(df.sales.clip(lower=0))
    cutoff = df.date.max() - pd.Timedelta(days=valid_days)
    return df[df.date <= cutoff].reset_index(drop=True), df[df.date > cutoff].reset_index(drop=True)


def encoders(train):
    # category -> code, built from train rows only; same result on all workers (sorted uniques)
    return {c: {v: i + 1 for i, v in enumerate(np.sort(train[c].unique()))} for c in CATS}


def encode(df, enc):
    return {c: df[c].map(enc[c]).fillna(0).astype("int32").values for c in CATS}, df.sales.values.astype("float32")


def partition(n, rank, size, seed, epoch):
    """same shuffled order on every worker, each takes an equal contiguous block"""
    order = np.random.RandomState(seed + epoch).permutation(n)
    per = n // size
    return order[rank * per:(rank + 1) * per]


def batches(x, y, idx, bs):
    for s in range(0, len(idx) - bs + 1, bs):
        b = idx[s:s + bs]
        yield {k: tf.constant(v[b]) for k, v in x.items()}, tf.constant(y[b])
