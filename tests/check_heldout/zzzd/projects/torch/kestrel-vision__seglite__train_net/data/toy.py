import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class ToyShapes(Dataset):
    """Random rectangles/discs on noise; a stand-in for Cityscapes when hacking on a laptop."""

    def __init__(self, n, size=64, num_classes=3, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.rand(n, 3, size, size, generator=g)
        self.masks = torch.randint(0, num_classes, (n, size, size), generator=g)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.masks[i]


def build_dataloader(dataset, batch_size, world_size, rank, train=True):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=train, num_workers=2)
