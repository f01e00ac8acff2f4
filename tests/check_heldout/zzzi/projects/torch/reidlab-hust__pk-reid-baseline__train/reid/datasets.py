import os
import re
import glob

from PIL import Image
from torch.utils.data import Dataset

_PATTERN = re.compile(r'([-\d]+)_c(\d)')


class Market1501(object):
    """Market-1501 folder layout: bounding_box_train / query / bounding_box_test."""

    def __init__(self, root):
        self.train = self._scan(os.path.join(root, 'bounding_box_train'), relabel=True)
        self.query = self._scan(os.path.join(root, 'query'))
        self.gallery = self._scan(os.path.join(root, 'bounding_box_test'))
        self.num_train_pids = len({pid for _, pid, _ in self.train})

    @staticmethod
    def _scan(folder, relabel=False):
        paths = sorted(glob.glob(os.path.join(folder, '*.jpg')))
        items = []
        for p in paths:
            pid, cam = map(int, _PATTERN.search(os.path.basename(p)).groups())
            if pid == -1:
                continue  # junk images
            items.append((p, pid, cam - 1))
        if relabel:
            mapping = {pid: i for i, pid in enumerate(sorted({pid for _, pid, _ in items}))}
            items = [(p, mapping[pid], cam) for p, pid, cam in items]
        return items


class ImageDataset(Dataset):
    def __init__(self, items, transform=None):
        self.items = items
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        path, pid, cam = self.items[idx]
        img = Image.open(path).convert('RGB')
        if self.transform is not None:
            img = self.transform(img)
        return img, pid, cam
