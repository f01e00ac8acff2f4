import os

import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_loaders(data_dir, batch_size, workers):
    train_tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    eval_tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
                                  transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_set = datasets.ImageFolder(os.path.join(data_dir, "train"), train_tf)
    val_set = datasets.ImageFolder(os.path.join(data_dir, "val"), eval_tf)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train_set, batch_size, sampler=train_sampler, num_workers=workers, pin_memory=True),
            DataLoader(val_set, batch_size, sampler=val_sampler, num_workers=workers),
            train_sampler)
