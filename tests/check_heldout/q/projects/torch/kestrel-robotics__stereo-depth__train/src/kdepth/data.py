import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class DepthPairs(Dataset):
    def __init__(self, path, max_depth):
        blob = np.load(path)
        self.rgb = blob["rgb"]
        self.depth = np.clip(blob["depth"], 0.0, max_depth)

    def __len__(self):
        return len(self.rgb)

    def __getitem__(self, i):
        rgb = torch.from_numpy(self.rgb[i]).float().div_(255.0)
        depth = torch.from_numpy(self.depth[i]).float().unsqueeze(0)
        return rgb, depth


def make_loader(path, max_depth, batch_size, num_replicas, rank, train, num_workers=2, seed=0):
    ds = DepthPairs(path, max_depth)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, shuffle=train, seed=seed)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                        pin_memory=True, drop_last=train)
    return loader, sampler
