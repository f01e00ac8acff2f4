import torch
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def _datasets(root, name):
    norm = T.Normalize(MEAN, STD)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
    test_tf = T.Compose([T.ToTensor(), norm])
    if name == "fake":
        mk = torchvision.datasets.FakeData
        return (mk(512, (3, 32, 32), 10, transform=test_tf, random_offset=0),
                mk(128, (3, 32, 32), 10, transform=test_tf, random_offset=1))
    return (torchvision.datasets.CIFAR10(root, train=True, transform=train_tf),
            torchvision.datasets.CIFAR10(root, train=False, transform=test_tf))


def build_loaders(root, name, batch_size, workers, num_replicas, rank):
    train_set, val_set = _datasets(root, name)
    train_sampler = DistributedSampler(train_set, num_replicas=num_replicas, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=num_replicas, rank=rank, shuffle=False)
    kw = dict(num_workers=workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
