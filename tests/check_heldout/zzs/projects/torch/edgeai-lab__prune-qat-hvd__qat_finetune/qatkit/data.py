import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def loaders(root, batch_size):
    tf_train = transforms.Compose([transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    train = datasets.CIFAR10(root, train=True, transform=tf_train)
    val = datasets.CIFAR10(root, train=False, transform=transforms.ToTensor())
    sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
    return (DataLoader(train, batch_size=batch_size, sampler=sampler, num_workers=4, drop_last=True),
            DataLoader(val, batch_size=512, num_workers=2), sampler)
