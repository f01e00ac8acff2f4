import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def cifar10_loaders(root, batch_size, num_workers=4):
    normalize = transforms.Normalize([0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616])
    train_set = datasets.CIFAR10(root, train=True, transform=transforms.Compose([
        transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), normalize]))
    test_set = datasets.CIFAR10(root, train=False, transform=transforms.Compose([
        transforms.ToTensor(), normalize]))

    world, me = hvd.size(), hvd.local_rank()
    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=me)
    test_sampler = DistributedSampler(test_set, num_replicas=world, rank=me, shuffle=False)
    kw = dict(num_workers=num_workers, pin_memory=True)
    return (DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, **kw),
            DataLoader(test_set, batch_size=500, sampler=test_sampler, **kw),
            train_sampler)
