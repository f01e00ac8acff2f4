import numpy as np
import pandas as pd
import tensorflow as tf

from .features import FEATURES, LABEL, DenseFeat


def load_frame(path):
    df = pd.read_parquet(path)
    for f in FEATURES:
        if isinstance(f, DenseFeat):
            df[f.name] = np.log1p(df[f.name].fillna(0).clip(lower=0)).astype("float32")
        else:
            df[f.name] = df[f.name].fillna(0).astype("int64") % f.vocab_size
    return df


def make_dataset(df, batch_size, training, num_shards=1, shard_index=0):
    feats = {f.name: df[f.name].to_numpy()[:, None] for f in FEATURES}
    ds = tf.data.Dataset.from_tensor_slices((feats, df[LABEL].to_numpy("float32")))
    if num_shards > 1:
        ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(100_000).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
