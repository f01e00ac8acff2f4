import numpy as np
import tensorflow as tf

from . import config


def load_table(path=config.STATIONS_CSV):
    with open(path) as f:
        header = f.readline().strip().split(",")
    cols = [header.index(c) for c in config.FEATURES]
    table = np.loadtxt(path, delimiter=",", skiprows=1, usecols=cols, dtype=np.float32)
    return table


def split_and_scale(table):
    cut = int(len(table) * (1 - config.VAL_FRACTION))
    mean, std = table[:cut].mean(0), table[:cut].std(0) + 1e-6
    return (table[:cut] - mean) / std, (table[cut:] - mean) / std, (mean, std)


def n_windows(series):
    return len(series) - config.INPUT_STEPS - config.OUTPUT_STEPS + 1


def windows(series, shard=None, shuffle=False, repeat=False):
    """Dataset of (input window, target horizon); `shard=(num, index)` keeps every num-th start."""
    data = tf.constant(series)
    t_idx = config.FEATURES.index(config.TARGET)
    starts = tf.data.Dataset.range(n_windows(series))
    if shard is not None:
        starts = starts.shard(*shard)
    if shuffle:
        starts = starts.shuffle(20000, reshuffle_each_iteration=True)
    if repeat:
        starts = starts.repeat()

    def cut(s):
        x = data[s:s + config.INPUT_STEPS]
        y = data[s + config.INPUT_STEPS:s + config.INPUT_STEPS + config.OUTPUT_STEPS, t_idx]
        return x, y

    return starts.map(cut, num_parallel_calls=tf.data.AUTOTUNE).batch(config.BATCH_SIZE).prefetch(2)
