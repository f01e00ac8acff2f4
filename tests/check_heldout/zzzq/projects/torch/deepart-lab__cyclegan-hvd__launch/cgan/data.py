import glob
import os
import random

import torch
from PIL import Image
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import torchvision.transforms as T
import horovod.torch as hvd


class UnpairedImages(Dataset):
    def __init__(self, root_a, root_b, size):
        self.a = sorted(glob.glob(os.path.join(root_a, "*.*")))
        self.b = sorted(glob.glob(os.path.join(root_b, "*.*")))
        self.tf = T.Compose([T.Resize(int(size * 1.12)), T.RandomCrop(size), T.RandomHorizontalFlip(),
                             T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)])

    def __len__(self):
        return max(len(self.a), len(self.b))

    def __getitem__(self, i):
        a = Image.open(self.a[i % len(self.a)]).convert("RGB")
        b = Image.open(self.b[random.randrange(len(self.b))]).convert("RGB")
        return self.tf(a), self.tf(b)


def make_loader(cfg):
    ds = UnpairedImages(cfg.root_a, cfg.root_b, cfg.size)
    # each worker takes its own slice of domain A
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=True)
    dl = DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, num_workers=4, drop_last=True)
    return dl, sampler
