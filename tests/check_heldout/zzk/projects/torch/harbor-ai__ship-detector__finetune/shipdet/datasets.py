import os
import xml.etree.ElementTree as ET

import torch
from PIL import Image
from torchvision.transforms import functional as F


class VOCShips(torch.utils.data.Dataset):
    """VOC-style layout: <root>/JPEGImages/*.jpg, <root>/Annotations/*.xml, <root>/ImageSets/<split>.txt"""

    def __init__(self, root, split="train", train=False):
        self.root = root
        self.train = train
        with open(os.path.join(root, "ImageSets", f"{split}.txt")) as f:
            self.ids = [line.strip() for line in f if line.strip()]

    def __len__(self):
        return len(self.ids)

    def _parse(self, image_id):
        tree = ET.parse(os.path.join(self.root, "Annotations", f"{image_id}.xml"))
        boxes = []
        for obj in tree.findall("object"):
            bb = obj.find("bndbox")
            boxes.append([float(bb.find(t).text) for t in ("xmin", "ymin", "xmax", "ymax")])
        return torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4)

    def __getitem__(self, idx):
        image_id = self.ids[idx]
        img = F.to_tensor(Image.open(os.path.join(self.root, "JPEGImages", f"{image_id}.jpg")).convert("RGB"))
        boxes = self._parse(image_id)
        if self.train and torch.rand(1).item() < 0.5:
            img = img.flip(-1)
            w = img.shape[-1]
            boxes[:, [0, 2]] = w - boxes[:, [2, 0]]
        target = {"boxes": boxes, "labels": torch.ones(len(boxes), dtype=torch.int64), "image_id": idx}
        return img, target


def detection_collate(batch):
    """Images have different sizes and a different number of boxes: keep them as lists."""
    images, targets = zip(*batch)
    return list(images), list(targets)
