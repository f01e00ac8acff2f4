import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def cifar100(root, batch_size):
    norm = transforms.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
    train = datasets.CIFAR100(root, train=True, transform=transforms.Compose(
        [transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    test = datasets.CIFAR100(root, train=False, transform=transforms.Compose([transforms.ToTensor(), norm]))
    sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), drop_last=True)
    return (DataLoader(train, batch_size, sampler=sampler, num_workers=4, drop_last=True),
            DataLoader(test, 250, num_workers=2), sampler)
