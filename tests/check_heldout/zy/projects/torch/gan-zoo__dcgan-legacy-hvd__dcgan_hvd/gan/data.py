import torch
import torchvision.datasets as dset
import torchvision.transforms as transforms
from torch.utils.data import DataLoader, Subset


def image_folder(root, image_size=64):
    return dset.ImageFolder(root=root, transform=transforms.Compose([
        transforms.Resize(image_size), transforms.CenterCrop(image_size), transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]))


def epoch_loader(dataset, epoch, rank, world, batch_size, seed=999, workers=2):
    """Same permutation on every worker (seeded by epoch), each takes every world-th index.

    Truncated so that all workers run the same number of steps.
    """
    g = torch.Generator()
    g.manual_seed(seed + epoch)
    perm = torch.randperm(len(dataset), generator=g).tolist()
    per_rank = len(perm) // world
    idx = perm[rank::world][:per_rank]
    return DataLoader(Subset(dataset, idx), batch_size=batch_size, shuffle=False,
                      num_workers=workers, drop_last=True)
