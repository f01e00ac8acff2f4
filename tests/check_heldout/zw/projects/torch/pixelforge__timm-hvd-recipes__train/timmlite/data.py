import os

import torch
import torchvision.transforms as T
from torchvision.datasets import ImageFolder
from torch.utils.data.distributed import DistributedSampler

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def create_dataset(root, split):
    return ImageFolder(os.path.join(root, split))


class _TransformSubset(torch.utils.data.Dataset):
    def __init__(self, ds, transform):
        self.ds, self.transform = ds, transform

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        img, target = self.ds[i]
        return self.transform(img), target


def create_loader(dataset, img_size, batch_size, is_training=False, num_workers=4,
                  num_replicas=1, rank=0, seed=0):
    if is_training:
        tf = T.Compose([T.RandomResizedCrop(img_size), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
    else:
        tf = T.Compose([T.Resize(int(img_size / 0.875)), T.CenterCrop(img_size), T.ToTensor(), T.Normalize(MEAN, STD)])
    # torch's sampler works without a process group when replicas/rank are given
    sampler = DistributedSampler(dataset, num_replicas=num_replicas, rank=rank, shuffle=is_training, seed=seed)
    return torch.utils.data.DataLoader(_TransformSubset(dataset, tf), batch_size=batch_size, sampler=sampler,
                                       num_workers=num_workers, pin_memory=True, drop_last=is_training)
