import torch
from torch.utils.data import Subset, TensorDataset


def build_datasets(root, img):
    if not root:
        g = torch.Generator().manual_seed(0)
        train = TensorDataset(torch.randn(4096, 3, img, img, generator=g), torch.randint(0, 100, (4096,), generator=g))
        val = TensorDataset(torch.randn(512, 3, img, img, generator=g), torch.randint(0, 100, (512,), generator=g))
        return train, val, 100
    import torchvision.transforms as T
    from torchvision.datasets import ImageFolder
    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train = ImageFolder(f"{root}/train", T.Compose([T.RandomResizedCrop(img), T.RandomHorizontalFlip(),
                                                    T.ToTensor(), norm]))
    val = ImageFolder(f"{root}/val", T.Compose([T.Resize(img + img // 8), T.CenterCrop(img), T.ToTensor(), norm]))
    return train, val, len(train.classes)


def rank_subset(ds, rank, size):
    """Strided slice of the dataset; every rank gets the same number of samples."""
    usable = len(ds) // size * size
    return Subset(ds, range(rank, usable, size))
