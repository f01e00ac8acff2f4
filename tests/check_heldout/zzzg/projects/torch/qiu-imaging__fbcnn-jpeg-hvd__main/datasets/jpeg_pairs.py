import glob
import io
import os
import random

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


def jpeg_compress(img, quality):
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=int(quality))
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def to_tensor(img):
    return torch.from_numpy(np.asarray(img, np.float32).transpose(2, 0, 1) / 255.0)


class JpegPairs(Dataset):
    """(compressed, clean) patches; quality factor drawn per sample."""

    def __init__(self, root, patch=96, q_range=(10, 90)):
        self.paths = sorted(glob.glob(os.path.join(root, "*.png")))
        self.patch, self.q_range = patch, q_range

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        img = Image.open(self.paths[i]).convert("RGB")
        x = random.randint(0, img.width - self.patch)
        y = random.randint(0, img.height - self.patch)
        clean = img.crop((x, y, x + self.patch, y + self.patch))
        q = random.randint(*self.q_range)
        return to_tensor(jpeg_compress(clean, q)), to_tensor(clean)


class _FullImages(JpegPairs):
    def __init__(self, root, quality):
        super().__init__(root)
        self.quality = quality

    def __getitem__(self, i):
        img = Image.open(self.paths[i]).convert("RGB")
        img = img.crop((0, 0, img.width // 8 * 8, img.height // 8 * 8))
        return to_tensor(jpeg_compress(img, self.quality)), to_tensor(img)


def build_val_set(root, quality=10):
    return _FullImages(root, quality)
