import numpy as np
import tensorflow as tf


def load_series(path):
    z = np.load(path)
    load = z["load_mw"].astype(np.float32)
    calendar = np.stack([np.sin(2 * np.pi * z["hour"] / 24), np.cos(2 * np.pi * z["hour"] / 24),
                         np.sin(2 * np.pi * z["doy"] / 365.25), np.cos(2 * np.pi * z["doy"] / 365.25)], axis=1)
    return load, calendar.astype(np.float32), z["temp_c"].astype(np.float32)


def make_windows(load, calendar, temp, history, horizon):
    mu, sd = load.mean(), load.std()
    feats = np.concatenate([((load - mu) / sd)[:, None], calendar, (temp / 40.0)[:, None]], axis=1)
    starts = np.arange(0, len(load) - history - horizon + 1, 24)  # one window per day
    x = np.stack([feats[s:s + history] for s in starts])
    y = np.stack([(load[s + history:s + history + horizon] - mu) / sd for s in starts])
    return x, y, (mu, sd)


def train_dataset(x, y, batch_size, rank, size, seed):
    """Interleaved slice x[rank::size]: each window goes to exactly one worker."""
    ds = tf.data.Dataset.from_tensor_slices((x[rank::size], y[rank::size]))
    return ds.shuffle(len(x) // size + 1, seed=seed + rank).repeat().batch(batch_size, drop_remainder=True)


def full_dataset(x, y, batch_size):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
