from PIL import ImageFilter
import random

import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])


class GaussianBlur:
    def __init__(self, sigma=(0.1, 2.0)):
        self.sigma = sigma

    def __call__(self, x):
        return x.filter(ImageFilter.GaussianBlur(radius=random.uniform(*self.sigma)))


class TwoCropsTransform:
    def __init__(self, base_transform):
        self.base_transform = base_transform

    def __call__(self, x):
        return [self.base_transform(x), self.base_transform(x)]


def moco_v2_aug(size=224):
    return transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.2, 1.0)),
        transforms.RandomApply([transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
        transforms.RandomGrayscale(p=0.2),
        transforms.RandomApply([GaussianBlur()], p=0.5),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        normalize,
    ])


def eval_tf(size=224):
    return transforms.Compose([transforms.Resize(int(size * 1.14)), transforms.CenterCrop(size),
                               transforms.ToTensor(), normalize])


def build_loaders(root, batch_size, workers):
    train_set = datasets.ImageFolder(f"{root}/train", TwoCropsTransform(moco_v2_aug()))
    memory_set = datasets.ImageFolder(f"{root}/train", eval_tf())
    test_set = datasets.ImageFolder(f"{root}/val", eval_tf())
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), drop_last=True)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, pin_memory=True, drop_last=True)
    memory_loader = DataLoader(memory_set, batch_size=256, shuffle=False, num_workers=workers)
    test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler, num_workers=workers)
    return train_loader, train_sampler, memory_loader, test_loader
