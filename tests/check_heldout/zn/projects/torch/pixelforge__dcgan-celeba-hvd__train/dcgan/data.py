import os

import torch
import torchvision.datasets as dset
import torchvision.transforms as T
import horovod.torch as hvd


def celeba_transform(image_size):
    return T.Compose([
        T.Resize(image_size),
        T.CenterCrop(image_size),
        T.ToTensor(),
        T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    ])


def build_loader(root, split, image_size, batch_size, workers):
    """ImageFolder loader over root/<split>, one shard per Horovod worker."""
    ds = dset.ImageFolder(os.path.join(root, split), transform=celeba_transform(image_size))
    sampler = torch.utils.data.distributed.DistributedSampler(
        ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=(split == "train"))
    loader = torch.utils.data.DataLoader(
        ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
        drop_last=(split == "train"), pin_memory=True)
    return loader, sampler
