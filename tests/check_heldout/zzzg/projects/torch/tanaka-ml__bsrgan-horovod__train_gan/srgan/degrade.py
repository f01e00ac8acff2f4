"""Second-order degradation (blur -> resize -> noise -> JPEG, twice), on tensors."""
import io
import random

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image


def _gauss_kernel(sigma, size=7):
    ax = torch.arange(size, dtype=torch.float32) - size // 2
    k = torch.exp(-(ax[:, None] ** 2 + ax[None, :] ** 2) / (2 * sigma ** 2))
    return (k / k.sum()).expand(3, 1, size, size)


def _jpeg(x, q):
    arr = (x.clamp(0, 1).permute(1, 2, 0).numpy() * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "JPEG", quality=q)
    out = np.asarray(Image.open(io.BytesIO(buf.getvalue())), np.float32) / 255.0
    return torch.from_numpy(out).permute(2, 0, 1)


def degrade_once(x, scale):
    x = F.conv2d(x[None], _gauss_kernel(random.uniform(0.2, 3.0)), padding=3, groups=3)
    x = F.interpolate(x, scale_factor=1 / scale, mode=random.choice(["bilinear", "bicubic", "area"]))[0]
    x = x + torch.randn_like(x) * random.uniform(1, 25) / 255.0
    return _jpeg(x, random.randint(30, 95))


def second_order(hr, scale=4):
    return degrade_once(degrade_once(hr, 2), scale // 2)
