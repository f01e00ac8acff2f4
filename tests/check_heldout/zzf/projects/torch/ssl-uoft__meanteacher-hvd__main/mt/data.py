import numpy as np
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset, Subset
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

_norm = transforms.Normalize((0.4377, 0.4438, 0.4728), (0.198, 0.201, 0.197))
weak = transforms.Compose([transforms.RandomCrop(32, padding=2), transforms.ToTensor(), _norm])
plain = transforms.Compose([transforms.ToTensor(), _norm])


class TwoViews(Dataset):
    """Unlabelled view pairs for the consistency loss (labels dropped)."""

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        img, _ = self.base[i]
        return weak(img), weak(img)


def labeled_indices(targets, num_labels, num_classes=10, seed=0):
    rng = np.random.RandomState(seed)
    per_class = num_labels // num_classes
    idx = [rng.choice(np.where(targets == c)[0], per_class, replace=False) for c in range(num_classes)]
    return np.concatenate(idx).tolist()


def make_loaders(cfg):
    raw = datasets.SVHN(cfg.data_root, split="train", download=False)
    lab_idx = labeled_indices(np.asarray(raw.labels), cfg.num_labels)
    labeled = Subset(datasets.SVHN(cfg.data_root, split="train", transform=weak), lab_idx)
    unlabeled = TwoViews(raw)
    test = datasets.SVHN(cfg.data_root, split="test", transform=plain)

    def loader(ds, bs, shuffle, drop_last):
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
        return DataLoader(ds, batch_size=bs, sampler=sampler, num_workers=4, drop_last=drop_last)

    # the labelled set is small: it is repeated so that the zip() over both loaders lasts an epoch
    n_rep = max(1, (len(unlabeled) // cfg.unlabeled_ratio) // len(labeled))
    labeled = Subset(labeled, list(range(len(labeled))) * n_rep)
    return (loader(labeled, cfg.batch_size, True, True),
            loader(unlabeled, cfg.batch_size * cfg.unlabeled_ratio, True, True),
            loader(test, 512, False, False))
