import os
import random

import numpy as np
import torch
from PIL import Image
from torchvision.transforms import functional as F


class RandomCropFlip:
    def __init__(self, crop_size, hflip_prob=0.5):
        self.crop_size = crop_size
        self.hflip_prob = hflip_prob

    def __call__(self, image, target):
        w, h = image.size
        cs = min(self.crop_size, w, h)
        x, y = random.randint(0, w - cs), random.randint(0, h - cs)
        image, target = image.crop((x, y, x + cs, y + cs)), target.crop((x, y, x + cs, y + cs))
        if random.random() < self.hflip_prob:
            image, target = F.hflip(image), F.hflip(target)
        return image, target


class AerialTiles(torch.utils.data.Dataset):
    """<root>/<split>/img/*.png with label masks of the same name in <root>/<split>/mask/."""

    def __init__(self, root, split, crop_size=None):
        self.img_dir = os.path.join(root, split, "img")
        self.mask_dir = os.path.join(root, split, "mask")
        self.names = sorted(os.listdir(self.img_dir))
        self.aug = RandomCropFlip(crop_size) if crop_size else None

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        image = Image.open(os.path.join(self.img_dir, self.names[i])).convert("RGB")
        target = Image.open(os.path.join(self.mask_dir, self.names[i]))
        if self.aug is not None:
            image, target = self.aug(image, target)
        image = F.normalize(F.to_tensor(image), mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
        return image, torch.as_tensor(np.array(target), dtype=torch.int64)
