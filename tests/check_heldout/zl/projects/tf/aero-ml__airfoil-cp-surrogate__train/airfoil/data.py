"""XFOIL sweep: CST shape coefficients + (Re, alpha) -> Cp at 199 surface stations, and Cl."""
import numpy as np
import tensorflow as tf


def load_npz(path):
    d = np.load(path)
    x = np.concatenate([d["cst"], np.log10(d["re"])[:, None], d["alpha"][:, None] / 10.0], axis=1)
    return x.astype(np.float32), d["cp"].astype(np.float32), d["cl"].astype(np.float32)[:, None], d["x_station"]


def make_dataset(x, cp, cl, batch, shuffle_buffer=0, repeat=False):
    ds = tf.data.Dataset.from_tensor_slices((x, {"cp": cp, "cl": cl}))
    if shuffle_buffer:
        ds = ds.shuffle(shuffle_buffer)
    if repeat:
        ds = ds.repeat()
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
