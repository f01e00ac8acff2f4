import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class CroppedDogs(Dataset):
    """Pre-cropped dog images (bounding boxes from the Annotation folder), uint8 NHWC in one .npy."""

    def __init__(self, path):
        self.x = np.load(path, mmap_mode="r")

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = torch.from_numpy(np.ascontiguousarray(self.x[i])).permute(2, 0, 1).float()
        img = img / 127.5 - 1.0
        if torch.rand(()) < 0.5:
            img = img.flip(2)
        return img


def dog_loader(path, batch_size, rank, world, workers=4):
    ds = CroppedDogs(path)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, drop_last=True)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      drop_last=True, pin_memory=True), sampler
