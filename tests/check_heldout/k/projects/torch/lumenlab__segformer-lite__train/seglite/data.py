import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from .dist import hvd


class SegFolder(Dataset):
    """images/<split>/*.jpg with annotations/<split>/*.png of the same stem."""

    def __init__(self, root, split, crop_size, train):
        self.img_dir = os.path.join(root, "images", split)
        self.ann_dir = os.path.join(root, "annotations", split)
        self.stems = sorted(os.path.splitext(f)[0] for f in os.listdir(self.img_dir))
        self.crop = crop_size
        self.train = train

    def __len__(self):
        return len(self.stems)

    def __getitem__(self, i):
        stem = self.stems[i]
        img = Image.open(os.path.join(self.img_dir, stem + ".jpg")).convert("RGB")
        ann = Image.open(os.path.join(self.ann_dir, stem + ".png"))
        img = img.resize((self.crop, self.crop), Image.BILINEAR)
        ann = ann.resize((self.crop, self.crop), Image.NEAREST)
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
        y = torch.from_numpy(np.asarray(ann, dtype=np.int64)) - 1  # 0 = ignore -> -1
        if self.train and torch.rand(()) < 0.5:
            x, y = x.flip(-1), y.flip(-1)
        return x, y


class SegDataModule:
    def __init__(self, cfg):
        self.cfg = cfg
        self.datasets = {
            "train": SegFolder(cfg.root, "training", cfg.crop_size, train=True),
            "validation": SegFolder(cfg.root, "validation", cfg.crop_size, train=False),
        }
        self.samplers = {
            split: DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                      shuffle=(split == "train"))
            for split, ds in self.datasets.items()
        }

    def loader(self, split):
        return DataLoader(self.datasets[split], batch_size=self.cfg.batch_size,
                          sampler=self.samplers[split], num_workers=self.cfg.workers,
                          pin_memory=True, drop_last=(split == "train"))

    def set_epoch(self, epoch):
        self.samplers["train"].set_epoch(epoch)
