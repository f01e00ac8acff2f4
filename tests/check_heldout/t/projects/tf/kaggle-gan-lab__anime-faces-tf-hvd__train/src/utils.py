import math
import os

import numpy as np
import tensorflow as tf


def to_uint8(images):
    return np.clip((np.asarray(images) + 1.0) * 127.5, 0, 255).astype(np.uint8)


def save_grid(images, path, ncol=4):
    """Tile a batch of NHWC images in [-1, 1] into one PNG."""
    imgs = to_uint8(images)
    n, h, w, c = imgs.shape
    nrow = math.ceil(n / ncol)
    grid = np.zeros((nrow * h, ncol * w, c), dtype=np.uint8)
    for i in range(n):
        r, q = divmod(i, ncol)
        grid[r * h:(r + 1) * h, q * w:(q + 1) * w] = imgs[i]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tf.io.write_file(path, tf.io.encode_png(grid))


class EpochTimer:
    def __init__(self):
        self.times = []

    def __enter__(self):
        import time
        self._t0 = time.time()
        return self

    def __exit__(self, *exc):
        import time
        self.times.append(time.time() - self._t0)
        return False

    @property
    def last(self):
        return self.times[-1]

    @property
    def eta_factor(self):
        return float(np.median(self.times)) if self.times else 0.0
