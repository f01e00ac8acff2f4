from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def loaders(cfg, size, rank):
    tr = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                             transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    te = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
                             transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_set = datasets.ImageFolder(f"{cfg.data_dir}/train", tr)
    val_set = datasets.ImageFolder(f"{cfg.data_dir}/val", te)
    sampler = DistributedSampler(train_set, num_replicas=size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=size, rank=rank, shuffle=False)
    return (DataLoader(train_set, cfg.batch_size, sampler=sampler, num_workers=4, drop_last=True),
            DataLoader(val_set, cfg.batch_size, sampler=val_sampler, num_workers=4),
            sampler)
