import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class NpyImages(Dataset):
    """uint8 array (N, H, W, 3) on disk -> float tensors in [-1, 1], random h-flip for training."""

    def __init__(self, path, flip=True):
        self.x = np.load(path, mmap_mode="r")
        self.flip = flip

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = torch.from_numpy(np.array(self.x[i])).permute(2, 0, 1).float() / 127.5 - 1.0
        if self.flip and torch.rand(()) < 0.5:
            img = img.flip(-1)
        return img


def make_loader(path, batch_size, train=True, workers=4):
    ds = NpyImages(path, flip=train)
    # shard across the GPUs of this node
    sampler = DistributedSampler(ds, num_replicas=hvd.local_size(), rank=hvd.local_rank(),
                                 shuffle=train, drop_last=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        pin_memory=torch.cuda.is_available(), drop_last=train,
                        persistent_workers=workers > 0)
    return loader, sampler
