import json
import os

import torch
from PIL import Image


class JsonDetection(torch.utils.data.Dataset):
    """Images in <root>/images, one annotation file <root>/annotations/<split>.json:
    {"images": [{"id", "file_name"}], "annotations": [{"image_id", "bbox": [x, y, w, h], "category_id"}]}"""

    def __init__(self, root, split, transforms=None, with_masks=True):
        self.root = root
        self.transforms = transforms
        self.with_masks = with_masks
        with open(os.path.join(root, "annotations", f"{split}.json")) as f:
            ann = json.load(f)
        self.images = sorted(ann["images"], key=lambda im: im["id"])
        self.anns = {}
        for a in ann["annotations"]:
            self.anns.setdefault(a["image_id"], []).append(a)
        # keep only images with at least one box (as in torchvision's remove_images_without_annotations)
        self.images = [im for im in self.images if im["id"] in self.anns]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        info = self.images[idx]
        img = Image.open(os.path.join(self.root, "images", info["file_name"])).convert("RGB")
        w, h = img.size
        objs = self.anns[info["id"]]
        boxes = torch.tensor([[o["bbox"][0], o["bbox"][1], o["bbox"][0] + o["bbox"][2], o["bbox"][1] + o["bbox"][3]] for o in objs], dtype=torch.float32)
        boxes[:, 0::2].clamp_(min=0, max=w)
        boxes[:, 1::2].clamp_(min=0, max=h)
        target = {"boxes": boxes, "labels": torch.tensor([o["category_id"] for o in objs], dtype=torch.int64), "image_id": info["id"]}
        if self.with_masks:
            masks = torch.zeros((len(objs), h, w), dtype=torch.uint8)
            for i, b in enumerate(boxes.round().long().tolist()):
                masks[i, b[1]:b[3], b[0]:b[2]] = 1
            target["masks"] = masks
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


def get_dataset(root, image_set, transforms, with_masks=True):
    ds = JsonDetection(root, image_set, transforms, with_masks)
    num_classes = 1 + max(a["category_id"] for anns in ds.anns.values() for a in anns)
    return ds, num_classes
