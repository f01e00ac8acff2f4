from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def get_loaders(root, batch_size, rank, world_size, workers=2):
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])
    train = datasets.FashionMNIST(root, train=True, download=False, transform=tf)
    test = datasets.FashionMNIST(root, train=False, download=False, transform=tf)
    train_sampler = DistributedSampler(train, num_replicas=world_size, rank=rank, shuffle=True)
    test_sampler = DistributedSampler(test, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train, batch_size=batch_size, sampler=train_sampler, num_workers=workers)
    test_loader = DataLoader(test, batch_size=1000, sampler=test_sampler, num_workers=workers)
    return train_loader, test_loader, train_sampler
