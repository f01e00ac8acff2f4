import os

import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class PairedSketches(Dataset):
    """``root/sketch/xxx.png`` paired with ``root/photo/xxx.jpg``."""

    def __init__(self, root, size=128, flip=True):
        self.root = root
        self.names = sorted(os.path.splitext(n)[0] for n in os.listdir(os.path.join(root, "sketch")))
        self.size = size
        self.flip = flip
        self.to_sketch = transforms.Compose([transforms.Grayscale(), transforms.ToTensor(),
                                             transforms.Normalize([0.5], [0.5])])
        self.to_photo = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.5] * 3)])

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        name = self.names[i]
        sketch = Image.open(os.path.join(self.root, "sketch", name + ".png")).resize((self.size, self.size))
        photo = Image.open(os.path.join(self.root, "photo", name + ".jpg")).convert("RGB")
        photo = photo.resize((self.size, self.size))
        s, p = self.to_sketch(sketch), self.to_photo(photo)
        if self.flip and torch.rand(()) < 0.5:
            s, p = s.flip(-1), p.flip(-1)
        return s, p
