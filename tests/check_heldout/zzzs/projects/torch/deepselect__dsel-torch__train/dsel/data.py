import torch
from torch.utils.data import TensorDataset, DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def build_datasets(name, root):
    if name == "synthetic":
        g = torch.Generator().manual_seed(0)
        w = torch.randn(32, 5, generator=g)
        x = torch.randn(4000, 32, generator=g)
        xt = torch.randn(1000, 32, generator=g)
        return TensorDataset(x, (x @ w).argmax(1)), TensorDataset(xt, (xt @ w).argmax(1))
    import torchvision
    import torchvision.transforms as T
    tf = T.Compose([T.ToTensor(), T.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
    return (torchvision.datasets.CIFAR10(root, train=True, download=False, transform=tf),
            torchvision.datasets.CIFAR10(root, train=False, download=False, transform=tf))


def labeled_loader(ds, idx, bs, epoch=0):
    sub = Subset(ds, idx)
    sampler = DistributedSampler(sub, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    sampler.set_epoch(epoch)
    return DataLoader(sub, batch_size=bs, sampler=sampler)


def unlabeled_loader(ds, idx, bs):
    # full pool on every worker (selection must agree everywhere)
    return DataLoader(_XOnly(Subset(ds, idx)), batch_size=bs * 4, shuffle=False)


def test_loader(ds, bs):
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return DataLoader(ds, batch_size=bs * 4, sampler=sampler)


class _XOnly(torch.utils.data.Dataset):
    def __init__(self, ds):
        self.ds = ds

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        return (self.ds[i][0],)
