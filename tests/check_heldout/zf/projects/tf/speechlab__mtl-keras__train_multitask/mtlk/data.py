import numpy as np

from .augment import spec_augment


def load(path, max_frames=200, augment=0, seed=0):
    """Returns (x, {"speaker": ..., "emotion": ...}) from an .npz of padded log-mel features."""
    z = np.load(path)
    x = z["feats"][:, :max_frames].astype("float32")
    mean, std = x.mean(axis=(0, 1), keepdims=True), x.std(axis=(0, 1), keepdims=True) + 1e-5
    x = (x - mean) / std
    y = {"speaker": z["speaker"].astype("int32"), "emotion": z["emotion"].astype("int32")}
    if augment:
        x = spec_augment(x, seed=seed, copies=augment)
        y = {k: np.tile(v, augment + 1) for k, v in y.items()}
    return x, y
