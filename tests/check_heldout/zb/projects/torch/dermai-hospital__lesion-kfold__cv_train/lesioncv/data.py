import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class LesionArray(Dataset):
    def __init__(self, images, labels, train):
        self.images, self.labels, self.train = images, labels, train

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i].astype(np.float32) / 255.0).permute(2, 0, 1)
        if self.train:
            if torch.rand(1).item() < 0.5:
                x = x.flip(2)
            if torch.rand(1).item() < 0.5:
                x = x.flip(1)
        return x, int(self.labels[i])


def fold_loaders(images, labels, fold_ids, fold, batch_size, rank, world):
    tr, va = fold_ids != fold, fold_ids == fold
    train_ds = LesionArray(images[tr], labels[tr], train=True)
    val_ds = LesionArray(images[va], labels[va], train=False)
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train_ds, batch_size=batch_size, sampler=train_sampler, drop_last=True),
            DataLoader(val_ds, batch_size=batch_size, sampler=val_sampler), train_sampler)
