import numpy as np
import pandas as pd
import tensorflow as tf


def load_split(path, target, seed, valid_frac=0.2):
    df = pd.read_csv(path)
    rng = np.random.default_rng(seed)
    msk = rng.random(len(df)) < valid_frac
    return df[~msk].reset_index(drop=True), df[msk].reset_index(drop=True)


class Encoder:
    def __init__(self, categorical, target):
        self.cat, self.target = categorical, target

    def fit(self, df):
        self.num = [c for c in df.columns if c not in self.cat + [self.target]]
        self.mu = df[self.num].mean()
        self.sd = df[self.num].std().replace(0.0, 1.0)
        self.lookup = {c: {v: i + 1 for i, v in enumerate(pd.unique(df[c].astype(str)))} for c in self.cat}
        return self

    def vocab_sizes(self):
        return [len(self.lookup[c]) + 1 for c in self.cat]

    def arrays(self, df):
        x = {"num": ((df[self.num] - self.mu) / self.sd).to_numpy("float32")}
        x["cat"] = np.stack([df[c].astype(str).map(self.lookup[c]).fillna(0).to_numpy("int32")
                             for c in self.cat], axis=1)
        return x, df[self.target].to_numpy("float32")


def make_dataset(x, y, batch_size, shard=None, shuffle=False, seed=0, repeat=False):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if shard is not None:
        num_shards, index = shard
        ds = ds.shard(num_shards, index)
    if shuffle:
        ds = ds.shuffle(10000, seed=seed, reshuffle_each_iteration=True)
    if repeat:
        ds = ds.repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
