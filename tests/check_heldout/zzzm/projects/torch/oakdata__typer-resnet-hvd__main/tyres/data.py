import torch
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def _datasets(dcfg):
    if dcfg.synthetic:
        n = dcfg.synthetic_size
        x = torch.randn(n, 3, 32, 32)
        y = torch.randint(0, 10, (n,))
        return TensorDataset(x, y), TensorDataset(x[: n // 4], y[: n // 4])
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(),
                          T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train = torchvision.datasets.CIFAR10(dcfg.root, train=True, transform=train_tf, download=False)
    val = torchvision.datasets.CIFAR10(dcfg.root, train=False, transform=test_tf, download=False)
    return train, val


def get_loaders(dcfg, rank, world_size):
    train, val = _datasets(dcfg)
    train_sampler = DistributedSampler(train, num_replicas=world_size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val, num_replicas=world_size, rank=rank, shuffle=False)
    kw = dict(batch_size=dcfg.batch_size, num_workers=dcfg.workers, pin_memory=True)
    return (DataLoader(train, sampler=train_sampler, drop_last=True, **kw),
            DataLoader(val, sampler=val_sampler, **kw))
