import torch
import torch.utils.data as tud
import torch.utils.data.distributed
import horovod.torch as hvd


class SyntheticImages(tud.Dataset):
    def __init__(self, n, num_classes, size, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, 3, size, size, generator=g)
        self.y = torch.randint(0, num_classes, (n,), generator=g)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def _dataset(args, train):
    if not args.data:
        return SyntheticImages(args.synthetic_size if train else args.synthetic_size // 4,
                               args.num_classes, args.image_size, seed=0 if train else 1)
    from torchvision import datasets, transforms
    norm = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    if train:
        tf = transforms.Compose([transforms.RandomResizedCrop(args.image_size),
                                 transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm])
        return datasets.ImageFolder(args.data + "/train", tf)
    tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(args.image_size),
                             transforms.ToTensor(), norm])
    return datasets.ImageFolder(args.data + "/val", tf)


def build_loaders(args):
    kwargs = {"num_workers": args.workers, "pin_memory": True} if args.cuda else {}
    train_set = _dataset(args, True)
    val_set = _dataset(args, False)
    train_sampler = tud.distributed.DistributedSampler(
        train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=args.seed)
    val_sampler = tud.distributed.DistributedSampler(
        val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = tud.DataLoader(train_set, batch_size=args.batch_size,
                                  sampler=train_sampler, drop_last=True, **kwargs)
    val_loader = tud.DataLoader(val_set, batch_size=args.batch_size,
                                sampler=val_sampler, **kwargs)
    return train_loader, val_loader, train_sampler
