import torch
from torch.utils.data import Dataset


class CxrTensorDataset(Dataset):
    """Pre-resized images saved with torch.save({'images': uint8 N x 1 x H x W, 'labels': N x 5})."""

    def __init__(self, path, augment=False):
        blob = torch.load(path)
        self.images = blob["images"]
        self.labels = blob["labels"].float()
        self.augment = augment

    def __len__(self):
        return self.images.size(0)

    def __getitem__(self, idx):
        img = self.images[idx].float().div(255.0).expand(3, -1, -1)
        if self.augment and torch.rand(1).item() < 0.5:
            img = img.flip(-1)
        img = (img - 0.5) / 0.25
        return img, self.labels[idx]
