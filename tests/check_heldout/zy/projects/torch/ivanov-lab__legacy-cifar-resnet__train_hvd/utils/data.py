import torch
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2470, 0.2435, 0.2616)


def build_loaders(root, batch_size, workers=2):
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(),
                          T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train_set = torchvision.datasets.CIFAR10(root, train=True, download=False, transform=train_tf)
    test_set = torchvision.datasets.CIFAR10(root, train=False, download=False, transform=test_tf)

    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = torch.utils.data.distributed.DistributedSampler(
        test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)

    train_loader = torch.utils.data.DataLoader(train_set, batch_size=batch_size,
                                               sampler=train_sampler, num_workers=workers,
                                               pin_memory=True)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=batch_size,
                                              sampler=test_sampler, num_workers=workers)
    return train_loader, test_loader, train_sampler
