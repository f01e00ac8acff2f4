from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from . import dist

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_probe_loaders(root, batch_size, workers=8):
    train_tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    val_tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
                                 transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_set = datasets.ImageFolder(f"{root}/train", train_tf)
    sampler = DistributedSampler(train_set, num_replicas=dist.world_size(), rank=dist.rank(),
                                 shuffle=True, drop_last=True)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=sampler,
                              num_workers=workers, pin_memory=True, drop_last=True)
    val_loader = None
    if dist.is_main():
        # the whole validation set, scored by rank 0 only
        val_set = datasets.ImageFolder(f"{root}/val", val_tf)
        val_loader = DataLoader(val_set, batch_size=256, shuffle=False, num_workers=workers)
    return train_loader, sampler, val_loader
