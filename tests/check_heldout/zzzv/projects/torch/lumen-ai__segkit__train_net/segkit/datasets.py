import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class RandomSegDataset(Dataset):
    def __init__(self, n, size, num_classes, seed):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randn(n, 3, size, size, generator=g)
        self.masks = torch.randint(0, num_classes, (n, size, size), generator=g)

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, i):
        return self.images[i], self.masks[i]


def build_dataloader(cfg, split, rank, world_size):
    n = cfg.train_samples if split == "train" else cfg.val_samples
    ds = RandomSegDataset(n, cfg.image_size, cfg.num_classes, seed=0 if split == "train" else 1)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=(split == "train"))
    return DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, drop_last=(split == "train")), sampler
