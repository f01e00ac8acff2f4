import os
import numpy as np
from PIL import Image


def save_grid(images, path, nrow=8):
    images = np.asarray(images)
    n, h, w, _ = images.shape
    ncol = int(np.ceil(n / nrow))
    grid = np.ones((ncol * (h + 2), nrow * (w + 2)), dtype=np.float32)
    for i, im in enumerate(images):
        r, c = divmod(i, nrow)
        grid[r * (h + 2):r * (h + 2) + h, c * (w + 2):c * (w + 2) + w] = im[..., 0]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    Image.fromarray((grid * 255).astype(np.uint8)).save(path)
