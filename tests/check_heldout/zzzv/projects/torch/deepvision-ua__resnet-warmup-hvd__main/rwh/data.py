import torch
import torch.utils.data as tud


class RandomImages(tud.Dataset):
    """stand-in for the ImageFolder we use on the cluster"""

    def __init__(self, n, num_classes=100, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, 3, 32, 32, generator=g)
        self.y = torch.randint(0, num_classes, (n,), generator=g)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_loaders(args, hvd):
    train_set = RandomImages(args.train_size, seed=args.seed)
    val_set = RandomImages(args.val_size, seed=args.seed + 1)

    train_sampler = tud.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = tud.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                  num_workers=args.workers, drop_last=True)

    val_sampler = tud.distributed.DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    val_loader = tud.DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                                num_workers=args.workers)
    return train_loader, val_loader, train_sampler, val_sampler
