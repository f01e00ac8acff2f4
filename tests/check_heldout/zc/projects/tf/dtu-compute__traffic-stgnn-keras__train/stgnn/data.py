import math

import numpy as np
import keras


def synthetic_traffic(n_sensors, n_steps=288 * 20, seed=17):
    """Speeds on a ring road: a daily profile plus a congestion wave that travels between sensors."""
    rng = np.random.default_rng(seed)
    t = np.arange(n_steps)[:, None]
    pos = np.arange(n_sensors)[None, :]
    speed = 60 - 20 * np.exp(-((t % 288 - 100 - 2 * pos) ** 2) / 200.0) + rng.normal(0, 2, (n_steps, n_sensors))
    adj = np.zeros((n_sensors, n_sensors), np.float32)
    for i in range(n_sensors):
        adj[i, (i + 1) % n_sensors] = adj[(i + 1) % n_sensors, i] = 1.0
    adj += np.eye(n_sensors, dtype=np.float32)
    adj /= adj.sum(1, keepdims=True)
    return speed.astype(np.float32), adj


class RankWindows(keras.utils.PyDataset):
    """Windows of one worker: the start indices are split into equal contiguous blocks, one per rank."""

    def __init__(self, series, history, horizon, batch_size, rank=0, size=1, shuffle=True, seed=0, **kw):
        super().__init__(**kw)
        starts = np.arange(len(series) - history - horizon)
        per = len(starts) // size
        self.starts = starts[rank * per:(rank + 1) * per]
        self.series, self.history, self.horizon = series, history, horizon
        self.batch_size, self.shuffle = batch_size, shuffle
        self.rng = np.random.default_rng(seed + rank)
        self.on_epoch_end()

    def __len__(self):
        return math.floor(len(self.starts) / self.batch_size)

    def on_epoch_end(self):
        if self.shuffle:
            self.rng.shuffle(self.starts)

    def __getitem__(self, i):
        s = self.starts[i * self.batch_size:(i + 1) * self.batch_size]
        x = np.stack([self.series[j:j + self.history] for j in s])[..., None]
        y = np.stack([self.series[j + self.history + self.horizon - 1] for j in s])
        return x, y
