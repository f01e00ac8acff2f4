"""Expression matrix handling: counts (cells x genes) in an .npz with cell-type labels."""
import numpy as np


def load_counts(path):
    z = np.load(path, allow_pickle=True)
    return z["counts"].astype(np.float32), z["cell_type"], list(z["genes"])


def normalize_log1p(counts, target_sum=1e4):
    lib = counts.sum(1, keepdims=True)
    return np.log1p(counts / np.maximum(lib, 1.0) * target_sum).astype(np.float32)


def highly_variable(x, n_top=2000):
    mean = x.mean(0)
    disp = x.var(0) / np.maximum(mean, 1e-8)
    return np.sort(np.argsort(-disp)[:n_top])


def encode_labels(names):
    classes = sorted(set(names.tolist()))
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[n] for n in names], np.int64), classes
