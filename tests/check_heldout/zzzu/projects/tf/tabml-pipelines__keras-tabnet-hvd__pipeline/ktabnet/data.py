import numpy as np
import pandas as pd
import tensorflow as tf


def encode_frame(df, categorical, target):
    df = df.copy()
    vocab = {}
    for c in categorical:
        cats = sorted(df[c].astype(str).unique())
        vocab[c] = len(cats) + 1
        df[c] = df[c].astype(str).map({v: i + 1 for i, v in enumerate(cats)}).astype("int32")
    if not pd.api.types.is_numeric_dtype(df[target]):
        df[target] = (df[target].str.lower().isin(["yes", "1", "true"])).astype("float32")
    numeric = [c for c in df.columns if c not in categorical + [target]]
    return df, numeric, vocab


def train_test_frames(df, test_size, seed):
    rng = np.random.RandomState(seed)
    is_test = rng.rand(len(df)) < test_size
    return df[~is_test], df[is_test]


def fit_scaler(frame, numeric):
    return frame[numeric].mean(), frame[numeric].std().replace(0, 1)


def to_dataset(frame, numeric, categorical, target, scaler, batch_size, rank, size, training):
    mu, sd = scaler
    feats = {"num": ((frame[numeric] - mu) / sd).values.astype("float32"),
             "cat": frame[categorical].values.astype("int32")}
    ds = tf.data.Dataset.from_tensor_slices((feats, frame[target].values.astype("float32")))
    ds = ds.shard(size, rank)
    if training:
        ds = ds.shuffle(20000, seed=rank).repeat()
    return ds.batch(batch_size)
