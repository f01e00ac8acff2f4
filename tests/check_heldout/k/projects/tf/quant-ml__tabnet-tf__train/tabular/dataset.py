import numpy as np
import pandas as pd
import tensorflow as tf


class TabularData:
    """Feature panel with a time-based split: train < probe_start <= probe < test_start."""

    def __init__(self, path, target="label", date_col="date", probe_start="2019-01-01",
                 test_start="2021-01-01"):
        df = pd.read_parquet(path)
        self.features = [c for c in df.columns if c not in (target, date_col, "asset_id")]
        dates = pd.to_datetime(df[date_col])
        x = df[self.features].to_numpy(np.float32)
        y = df[target].to_numpy(np.int32)
        train = (dates < probe_start).to_numpy()
        probe = ((dates >= probe_start) & (dates < test_start)).to_numpy()
        mu, sigma = x[train].mean(0), x[train].std(0) + 1e-6
        x = np.nan_to_num((x - mu) / sigma)
        self.x_train, self.y_train = x[train], y[train]
        self.x_probe, self.y_probe = x[probe], y[probe]

    @property
    def num_features(self):
        return len(self.features)

    def train(self, batch_size, num_shards, index):
        ds = tf.data.Dataset.from_tensor_slices((self.x_train, self.y_train))
        ds = ds.shard(num_shards, index).shuffle(50000).repeat()
        return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)

    def probe(self, batch_size):
        return tf.data.Dataset.from_tensor_slices((self.x_probe, self.y_probe)).batch(batch_size)

    def steps_per_epoch(self, batch_size, num_shards):
        return len(self.y_train) // (batch_size * num_shards)
