import os

import torch
from PIL import Image
from torch.utils.data import Dataset, ConcatDataset
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def train_tf(size):
    return transforms.Compose([transforms.RandomResizedCrop(size, scale=(0.5, 1.0)),
                               transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                               transforms.Normalize(MEAN, STD)])


def eval_tf(size):
    return transforms.Compose([transforms.Resize((size, size)), transforms.ToTensor(),
                               transforms.Normalize(MEAN, STD)])


class ImageList(Dataset):
    def __init__(self, paths, labels=None, transform=None):
        self.paths, self.labels, self.transform = list(paths), labels, transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        img = self.transform(Image.open(self.paths[i]).convert("RGB"))
        return img, (-1 if self.labels is None else int(self.labels[i]))


def labelled_split(root, size, val_every=5):
    """Every 5th image (sorted) of each class goes to validation."""
    full = datasets.ImageFolder(root)
    tr = [s for k, s in enumerate(full.samples) if k % val_every]
    va = [s for k, s in enumerate(full.samples) if k % val_every == 0]
    return (ImageList([p for p, _ in tr], [c for _, c in tr], train_tf(size)),
            ImageList([p for p, _ in va], [c for _, c in va], eval_tf(size)), full.classes)


def test_images(test_dir):
    return sorted(os.path.join(test_dir, f) for f in os.listdir(test_dir)
                  if f.lower().endswith((".jpg", ".jpeg", ".png")))


def with_pseudo(train_ds, paths, labels, size):
    return ConcatDataset([train_ds, ImageList(paths, torch.as_tensor(labels), train_tf(size))])
