import os
import xml.etree.ElementTree as ET

from PIL import Image
from torch.utils.data import Dataset


def _read_list(root, name):
    with open(os.path.join(root, name)) as fh:
        return [l.strip() for l in fh if l.strip()]


def load_split(root, folder, list_name):
    """VeRi-776 names look like 0002_c002_00030600_0.jpg (vehicle id, camera)."""
    items = []
    for fname in _read_list(root, list_name):
        vid, cam = fname.split('_')[:2]
        items.append((os.path.join(root, folder, fname), int(vid), int(cam[1:])))
    return items


def relabel(items):
    ids = sorted({v for _, v, _ in items})
    m = {v: i for i, v in enumerate(ids)}
    return [(p, m[v], c) for p, v, c in items], len(ids)


class VeRiImages(Dataset):
    def __init__(self, items, transform):
        self.items, self.transform = items, transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        p, vid, cam = self.items[i]
        return self.transform(Image.open(p).convert('RGB')), vid, cam
