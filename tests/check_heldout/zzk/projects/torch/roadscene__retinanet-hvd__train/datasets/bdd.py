import json
import os

import torch
from PIL import Image
from torchvision.transforms import functional as F

BDD_CLASSES = ["__bg__", "car", "truck", "bus", "person", "bike", "traffic light", "traffic sign"]


class BDDDetection(torch.utils.data.Dataset):
    """BDD100K-style labels: one json list of {"name", "width", "height", "labels": [{"category", "box2d"}]}."""

    def __init__(self, root, split, train=False):
        self.img_dir = os.path.join(root, "images", split)
        with open(os.path.join(root, "labels", f"det_{split}.json")) as f:
            frames = json.load(f)
        self.frames = [fr for fr in frames if any(l["category"] in BDD_CLASSES for l in fr.get("labels", []))]
        self.train = train

    def __len__(self):
        return len(self.frames)

    def image_sizes(self):
        return [(fr.get("width", 1280), fr.get("height", 720)) for fr in self.frames]

    def __getitem__(self, idx):
        fr = self.frames[idx]
        img = F.to_tensor(Image.open(os.path.join(self.img_dir, fr["name"])).convert("RGB"))
        objs = [l for l in fr["labels"] if l["category"] in BDD_CLASSES]
        boxes = torch.tensor([[o["box2d"][k] for k in ("x1", "y1", "x2", "y2")] for o in objs], dtype=torch.float32)
        labels = torch.tensor([BDD_CLASSES.index(o["category"]) for o in objs], dtype=torch.int64)
        if self.train and torch.rand(()) < 0.5:
            img = img.flip(-1)
            boxes[:, [0, 2]] = img.shape[-1] - boxes[:, [2, 0]]
        return img, {"boxes": boxes, "labels": labels, "image_id": torch.tensor(idx)}
