import os

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms
from torchvision.datasets.folder import default_loader


class FaceList(Dataset):
    """Reads a list file with lines `relative/path.jpg label`."""

    def __init__(self, root, list_file, transform=None):
        self.root = root
        self.items = []
        with open(list_file) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                path, label = line.rsplit(" ", 1)
                self.items.append((path, int(label)))
        self.transform = transform
        self.num_classes = 1 + max(l for _, l in self.items) if self.items else 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        path, label = self.items[idx]
        img = default_loader(os.path.join(self.root, path))
        if self.transform is not None:
            img = self.transform(img)
        return img, label


def face_transforms(train):
    t = [transforms.Resize((112, 112))]
    if train:
        t.append(transforms.RandomHorizontalFlip())
    t += [transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.5] * 3)]
    return transforms.Compose(t)


def make_loader(root, list_file, batch_size, train, world_size, rank, workers=4):
    ds = FaceList(root, list_file, face_transforms(train))
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train, drop_last=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        pin_memory=True, drop_last=train)
    return loader, sampler
