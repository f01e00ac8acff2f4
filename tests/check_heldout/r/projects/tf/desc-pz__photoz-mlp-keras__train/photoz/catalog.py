"""HDF5 catalogue with one dataset per band ('mag_u', ...) and 'redshift'. Each rank reads a strided
subset of rows so that the ranks together cover the catalogue once."""
import h5py
import numpy as np

from . import config


def _features(f, rows):
    mags = np.stack([f[f"mag_{b}"][rows] for b in config.BANDS], axis=1).astype("float32")
    mags = np.nan_to_num(mags, nan=30.0)               # non-detections -> faint limit
    colours = mags[:, :-1] - mags[:, 1:]
    return np.concatenate([mags, colours], axis=1)


def load(path, rank, size, val_fraction=0.1, seed=0):
    with h5py.File(path, "r") as f:
        n = f["redshift"].shape[0]
        order = np.random.default_rng(seed).permutation(n)
        n_val = int(n * val_fraction)
        per_rank_tr, per_rank_va = (n - n_val) // size, n_val // size
        tr = np.sort(order[n_val:][rank::size][:per_rank_tr])
        va = np.sort(order[:n_val][rank::size][:per_rank_va])
        x_tr, z_tr = _features(f, tr), f["redshift"][tr].astype("float32")
        x_va, z_va = _features(f, va), f["redshift"][va].astype("float32")
    mu, sd = x_tr.mean(0), x_tr.std(0) + 1e-6
    return ((x_tr - mu) / sd, z_tr), ((x_va - mu) / sd, z_va)
