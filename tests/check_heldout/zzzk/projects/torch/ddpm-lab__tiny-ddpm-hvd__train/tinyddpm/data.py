import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class NpzImages(Dataset):
    def __init__(self, root, split):
        arr = np.load(os.path.join(root, f"{split}.npz"))["x"]
        self.x = arr  # uint8 NHWC

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = torch.from_numpy(self.x[i]).permute(2, 0, 1).float() / 127.5 - 1.0
        if torch.rand(()) < 0.5:
            img = img.flip(-1)
        return img


def build_loader(args, split="train"):
    ds = NpzImages(args.data_dir, split)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, drop_last=True)
    kwargs = {"num_workers": args.num_workers, "pin_memory": True} if args.cuda else {}
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, drop_last=True, **kwargs)
    return loader, sampler
