"""CIFAR-10/100 from the lab's preprocessed npz dumps (x: uint8 NHWC, y: int64)."""
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

MEAN = np.array([0.4914, 0.4822, 0.4465], np.float32)
STD = np.array([0.2470, 0.2435, 0.2616], np.float32)


class NpzCifar(Dataset):
    def __init__(self, path, train):
        d = np.load(path)
        self.x, self.y = d["x"], d["y"].astype(np.int64)
        self.train = train

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        img = self.x[i].astype(np.float32) / 255.0
        if self.train:
            # random crop with 4-pixel padding + horizontal flip
            img = np.pad(img, ((4, 4), (4, 4), (0, 0)), mode="reflect")
            r, c = np.random.randint(0, 9, size=2)
            img = img[r:r + 32, c:c + 32]
            if np.random.rand() < 0.5:
                img = img[:, ::-1]
        img = (img - MEAN) / STD
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))), int(self.y[i])


def build_loaders(cfg, world_size, rank):
    train_set = NpzCifar(os.path.join(cfg["data_root"], f"{cfg['dataset']}_train.npz"), train=True)
    test_set = NpzCifar(os.path.join(cfg["data_root"], f"{cfg['dataset']}_test.npz"), train=False)
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True)
    test_sampler = DistributedSampler(test_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True,
                              num_workers=cfg["workers"], pin_memory=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=cfg["batch_size"], sampler=test_sampler,
                             num_workers=cfg["workers"], pin_memory=True)
    return train_loader, test_loader, train_sampler
