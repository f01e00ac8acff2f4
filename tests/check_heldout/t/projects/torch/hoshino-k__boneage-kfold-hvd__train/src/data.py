import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class BoneAgeDataset(Dataset):
    def __init__(self, images, ages, train):
        self.images, self.ages, self.train = images, ages, train

    def __len__(self):
        return len(self.ages)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i]).float().div_(255.0).unsqueeze(0)
        if self.train and np.random.rand() < 0.5:
            x = torch.flip(x, dims=[2])
        return x, torch.tensor(self.ages[i] / 240.0, dtype=torch.float32)


def load_arrays(data_dir):
    images = np.load(os.path.join(data_dir, "images.npy"), mmap_mode="r")
    ages = np.load(os.path.join(data_dir, "ages.npy"))
    return images, ages


def make_folds(n, n_folds):
    order = np.random.permutation(n)
    fold_of = np.empty(n, dtype=np.int64)
    for k, chunk in enumerate(np.array_split(order, n_folds)):
        fold_of[chunk] = k
    return fold_of


def build_loaders(images, ages, fold_of, fold, batch_size, num_workers, rank, world):
    tr_idx, va_idx = np.where(fold_of != fold)[0], np.where(fold_of == fold)[0]
    tr_ds = BoneAgeDataset(images[tr_idx], ages[tr_idx], train=True)
    va_ds = BoneAgeDataset(images[va_idx], ages[va_idx], train=False)
    tr_s = DistributedSampler(tr_ds, num_replicas=world, rank=rank, shuffle=True, drop_last=True)
    va_s = DistributedSampler(va_ds, num_replicas=world, rank=rank, shuffle=False)
    tr = DataLoader(tr_ds, batch_size=batch_size, sampler=tr_s, num_workers=num_workers,
                    pin_memory=True, drop_last=True)
    va = DataLoader(va_ds, batch_size=batch_size * 2, sampler=va_s, num_workers=num_workers)
    return tr, va, tr_s
