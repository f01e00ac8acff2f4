import torch
import torch.utils.data as tud
import horovod.torch as hvd


def _fake(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, 32, 32, generator=g)
    y = torch.randint(0, 10, (n,), generator=g)
    return tud.TensorDataset(x, y)


def _cifar(root, train):
    import torchvision
    import torchvision.transforms as T
    tf = T.Compose([T.ToTensor(), T.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
    return torchvision.datasets.CIFAR10(root, train=train, download=False, transform=tf)


def make_loaders(cfg, fake=False):
    if fake:
        train_ds, val_ds = _fake(256, 0), _fake(64, 1)
    else:
        train_ds, val_ds = _cifar(cfg["data_dir"], True), _cifar(cfg["data_dir"], False)

    train_sampler = tud.distributed.DistributedSampler(
        train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = tud.distributed.DistributedSampler(
        val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)

    train_loader = tud.DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=train_sampler,
                                  num_workers=0 if fake else cfg["num_workers"])
    val_loader = tud.DataLoader(val_ds, batch_size=cfg["batch_size"], sampler=val_sampler)
    return train_loader, val_loader, train_sampler
