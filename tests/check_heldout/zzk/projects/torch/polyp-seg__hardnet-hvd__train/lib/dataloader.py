import os

import numpy as np
import torch
from PIL import Image
import torchvision.transforms as T


class PolypDataset(torch.utils.data.Dataset):
    """<root>/images/*.png and <root>/masks/*.png (Kvasir-SEG / CVC-ClinicDB layout)."""

    def __init__(self, root, size=352, train=True):
        self.images = sorted(os.path.join(root, "images", f) for f in os.listdir(os.path.join(root, "images")))
        self.masks = sorted(os.path.join(root, "masks", f) for f in os.listdir(os.path.join(root, "masks")))
        assert len(self.images) == len(self.masks)
        self.train = train
        self.img_tf = T.Compose([T.Resize((size, size)), T.ToTensor(),
                                 T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
        self.mask_tf = T.Compose([T.Resize((size, size), interpolation=T.InterpolationMode.NEAREST), T.ToTensor()])

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = Image.open(self.images[i]).convert("RGB")
        mask = Image.open(self.masks[i]).convert("L")
        img, mask = self.img_tf(img), (self.mask_tf(mask) > 0.5).float()
        if self.train and np.random.rand() < 0.5:
            img, mask = img.flip(-1), mask.flip(-1)
        return img, mask
