import numpy as np
import horovod.tensorflow.keras as hvd


def load_features(path):
    z = np.load(path)
    out = {k: z[k] for k in z.files}
    mu = out["x_train"].mean(0)
    sd = out["x_train"].std(0) + 1e-6
    for split in ("train", "val", "test"):
        out[f"x_{split}"] = ((out[f"x_{split}"] - mu) / sd).astype("float32")
        out[f"y_{split}"] = out[f"y_{split}"].astype("int64")
    return out


def rank_slice(x, y, seed):
    """Same permutation on every rank, then an equal-sized contiguous block per rank."""
    perm = np.random.default_rng(seed).permutation(len(x))
    per_rank = len(x) // hvd.size()
    mine = perm[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
    return x[mine], y[mine]
