import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


def cartesian_mask(shape, accel, center_frac, rng):
    h, w = shape
    n_center = int(round(w * center_frac))
    prob = (w / accel - n_center) / (w - n_center)
    mask = rng.uniform(size=w) < prob
    pad = (w - n_center + 1) // 2
    mask[pad:pad + n_center] = True
    return np.broadcast_to(mask, (h, w))


class KneeSlices(Dataset):
    """Fully sampled single-coil knee slices (fastMRI, magnitude, 320x320) saved as .npy."""

    def __init__(self, root, split, accel=4, center_frac=0.08, fixed_mask=False):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npy")))
        self.accel, self.center_frac, self.fixed = accel, center_frac, fixed_mask

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        target = np.load(self.files[i]).astype(np.float32)
        rng = np.random.RandomState(i) if self.fixed else np.random
        k = np.fft.fftshift(np.fft.fft2(target))
        k = k * cartesian_mask(target.shape, self.accel, self.center_frac, rng)
        zf = np.abs(np.fft.ifft2(np.fft.ifftshift(k))).astype(np.float32)
        scale = zf.max() + 1e-8
        return torch.from_numpy(zf / scale)[None], torch.from_numpy(target / scale)[None]
