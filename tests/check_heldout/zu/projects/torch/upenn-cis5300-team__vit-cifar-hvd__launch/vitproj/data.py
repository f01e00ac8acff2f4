from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd

NORM = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))


def cifar_loaders(root, batch_size, workers=2):
    if hvd.local_rank() == 0:
        datasets.CIFAR10(root, train=True, download=True)
        datasets.CIFAR10(root, train=False, download=True)
    hvd.barrier()
    train = datasets.CIFAR10(root, train=True, transform=transforms.Compose([
        transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), NORM]))
    test = datasets.CIFAR10(root, train=False, transform=transforms.Compose([transforms.ToTensor(), NORM]))
    train_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
    test_sampler = DistributedSampler(test, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train, batch_size, sampler=train_sampler, num_workers=workers, drop_last=True),
            DataLoader(test, batch_size, sampler=test_sampler, num_workers=workers),
            train_sampler)
