import csv

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision.io import read_image, ImageReadMode
import torchvision.transforms.v2 as T
import horovod.torch as hvd


def read_folds(csv_path):
    with open(csv_path) as fh:
        return [(r["path"], int(r["label"]), int(r["fold"])) for r in csv.DictReader(fh)]


class LeafDataset(Dataset):
    def __init__(self, rows, size, train):
        self.rows = rows
        aug = [T.RandomHorizontalFlip(), T.RandomRotation(15)] if train else []
        self.tf = T.Compose([T.Resize((size, size)), *aug, T.ToDtype(torch.float32, scale=True)])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        path, label, _ = self.rows[i]
        return self.tf(read_image(path, ImageReadMode.RGB)), label


def fold_loaders(rows, fold, cfg):
    tr = LeafDataset([r for r in rows if r[2] != fold], cfg.IMG_SIZE, train=True)
    va = LeafDataset([r for r in rows if r[2] == fold], cfg.IMG_SIZE, train=False)
    sampler = DistributedSampler(tr, num_replicas=hvd.size(), rank=hvd.rank())
    va_sampler = DistributedSampler(va, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(tr, cfg.BATCH_PER_GPU, sampler=sampler, num_workers=cfg.WORKERS, drop_last=True),
            DataLoader(va, cfg.BATCH_PER_GPU, sampler=va_sampler, num_workers=cfg.WORKERS),
            sampler)
