"""Augmentations for H&E patches (HED-space stain jitter, dihedral flips)."""
import numpy as np
import torch

# Ruifrok & Johnston stain matrix (RGB -> HED)
_RGB_FROM_HED = np.array([[0.65, 0.70, 0.29], [0.07, 0.99, 0.11], [0.27, 0.57, 0.78]])
_HED_FROM_RGB = np.linalg.inv(_RGB_FROM_HED)


class HEDJitter:
    def __init__(self, sigma=0.03):
        self.sigma = sigma

    def __call__(self, img):
        rgb = np.clip(img.astype(np.float32) / 255.0, 1e-6, 1)
        od = -np.log(rgb) @ _HED_FROM_RGB
        alpha = np.random.uniform(1 - self.sigma, 1 + self.sigma, 3)
        beta = np.random.uniform(-self.sigma, self.sigma, 3)
        out = np.exp(-((od * alpha + beta) @ _RGB_FROM_HED))
        return (np.clip(out, 0, 1) * 255).astype(np.uint8)


class RandomDihedral:
    def __call__(self, img):
        img = np.rot90(img, np.random.randint(4))
        return np.fliplr(img) if np.random.rand() < 0.5 else img


class ToTensorNormalize:
    def __init__(self, mean=(0.70, 0.55, 0.70), std=(0.15, 0.18, 0.13)):
        self.mean = torch.tensor(mean).view(3, 1, 1)
        self.std = torch.tensor(std).view(3, 1, 1)

    def __call__(self, img):
        t = torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float() / 255.0
        return (t - self.mean) / self.std


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x
