import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class SliceDataset(Dataset):
    """2-D slices stored as images.npy (N,H,W) float32 and masks.npy (N,H,W) uint8."""

    def __init__(self, root, split):
        self.images = np.load(f"{root}/{split}/images.npy", mmap_mode="r")
        self.masks = np.load(f"{root}/{split}/masks.npy", mmap_mode="r")

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = torch.from_numpy(np.array(self.images[i], dtype=np.float32))[None]
        mask = torch.from_numpy(np.array(self.masks[i], dtype=np.int64))
        return img, mask


def make_loader(root, split, batch_size, shuffle):
    ds = SliceDataset(root, split)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=shuffle)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2, drop_last=shuffle), sampler
