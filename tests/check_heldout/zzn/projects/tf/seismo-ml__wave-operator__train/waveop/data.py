"""1-D acoustic wave snapshots: u(x, t_k) for k = 0..K on a velocity model c(x)."""
import numpy as np
import tensorflow as tf


class WaveData:
    def __init__(self, path, n_val=64):
        with np.load(path) as f:
            self.u = f["u"].astype(np.float32)       # (n_models, K, N)
            self.c = f["c"].astype(np.float32)       # (n_models, N)
        self.u_scale = float(np.abs(self.u[:-n_val]).max())
        self.c_mean, self.c_std = float(self.c[:-n_val].mean()), float(self.c[:-n_val].std())
        self.train = slice(0, len(self.u) - n_val)
        self.val = slice(len(self.u) - n_val, None)

    def features(self, u_prev, u_now, c):
        """Stack (u_{k-1}, u_k, c) as channels -> (..., N, 3)."""
        return np.stack([u_prev / self.u_scale, u_now / self.u_scale, (c - self.c_mean) / self.c_std], -1)

    def pairs(self, split):
        u, c = self.u[split], self.c[split]
        k = u.shape[1]
        x = self.features(u[:, :-2], u[:, 1:-1], np.repeat(c[:, None], k - 2, 1)).reshape(-1, u.shape[2], 3)
        y = (u[:, 2:] / self.u_scale).reshape(-1, u.shape[2], 1)
        return x, y

    def train_dataset(self, batch, seed):
        x, y = self.pairs(self.train)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=seed)
        return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE), len(x) // batch
