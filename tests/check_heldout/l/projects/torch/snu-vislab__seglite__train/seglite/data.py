import glob
import os
import random

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class CityscapesSeg(Dataset):
    """leftImg8bit/<split>/<city>/*.png with gtFine/<split>/<city>/*_labelTrainIds.png."""

    def __init__(self, root, split, crop=None, train=False):
        self.images = sorted(glob.glob(os.path.join(root, "leftImg8bit", split, "*", "*.png")))
        self.labels = [
            p.replace("leftImg8bit", "gtFine", 1).replace("_leftImg8bit.png", "_gtFine_labelTrainIds.png")
            for p in self.images
        ]
        self.crop = crop
        self.train = train

    def __len__(self):
        return len(self.images)

    def _random_crop(self, img, lbl):
        h, w = lbl.shape
        ch, cw = self.crop
        y = random.randint(0, max(h - ch, 0))
        x = random.randint(0, max(w - cw, 0))
        return img[y:y + ch, x:x + cw], lbl[y:y + ch, x:x + cw]

    def __getitem__(self, i):
        img = np.asarray(Image.open(self.images[i]).convert("RGB"), dtype=np.float32) / 255.0
        lbl = np.asarray(Image.open(self.labels[i]), dtype=np.int64)
        if self.train:
            img, lbl = self._random_crop(img, lbl)
            if random.random() < 0.5:
                img, lbl = img[:, ::-1], lbl[:, ::-1]
        img = (img - MEAN) / STD
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
        return img, torch.from_numpy(np.ascontiguousarray(lbl))
