import io
import random

import numpy as np
from PIL import Image, ImageFilter


def random_blur(img, sigma_range=(0.2, 2.0)):
    sigma = random.uniform(*sigma_range)
    return img.filter(ImageFilter.GaussianBlur(radius=sigma))


def random_noise(arr, sigma_range=(1, 15)):
    sigma = random.uniform(*sigma_range) / 255.0
    return np.clip(arr + np.random.randn(*arr.shape).astype(np.float32) * sigma, 0, 1)


def random_jpeg(img, quality_range=(40, 95)):
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=random.randint(*quality_range))
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def degrade(hr_img, scale):
    """Blur -> downsample -> JPEG -> noise, the classic real-SR chain."""
    w, h = hr_img.size
    img = random_blur(hr_img)
    img = img.resize((w // scale, h // scale), Image.BICUBIC)
    img = random_jpeg(img)
    arr = np.asarray(img, dtype=np.float32) / 255.0
    return random_noise(arr)
