"""Marmot / ICDAR-2013 table + column masks, listed one page id per line."""
import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

IMAGE_SIZE = 512
# leave some cores for the other workers on the node
NUM_WORKERS = max(1, (os.cpu_count() or 8) // hvd.local_size() - 1)


class TablePages(Dataset):
    def __init__(self, root, split_file, augment=False):
        with open(split_file) as fh:
            self.ids = [line.strip() for line in fh if line.strip()]
        self.root, self.augment = root, augment

    def __len__(self):
        return len(self.ids)

    def _load(self, sub, pid, mode):
        im = Image.open(os.path.join(self.root, sub, pid + ".png")).convert(mode)
        return im.resize((IMAGE_SIZE, IMAGE_SIZE), Image.BILINEAR if mode == "RGB" else Image.NEAREST)

    def __getitem__(self, i):
        pid = self.ids[i]
        img = np.asarray(self._load("images", pid, "RGB"), np.float32) / 255.0
        table = np.asarray(self._load("table_masks", pid, "L"), np.float32) > 127
        column = np.asarray(self._load("column_masks", pid, "L"), np.float32) > 127
        if self.augment and np.random.rand() < 0.5:
            img = np.ascontiguousarray(img[:, ::-1])
            table, column = np.ascontiguousarray(table[:, ::-1]), np.ascontiguousarray(column[:, ::-1])
        return (torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(table[None].astype(np.float32)),
                torch.from_numpy(column[None].astype(np.float32)))


def get_loader(root, split_file, batch_size, train):
    ds = TablePages(root, split_file, augment=train)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=NUM_WORKERS,
                      drop_last=train), sampler
