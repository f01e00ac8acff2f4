import json
import os

import numpy as np
import torch
from torch.utils.data import Dataset


def gaussian_heatmaps(joints, visible, hm_size, in_size, sigma):
    hw, hh = hm_size
    stride = in_size[0] / hw
    xs = np.arange(hw, dtype=np.float32)[None, :]
    ys = np.arange(hh, dtype=np.float32)[:, None]
    out = np.zeros((len(joints), hh, hw), dtype=np.float32)
    for j, (x, y) in enumerate(joints / stride):
        if visible[j]:
            out[j] = np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / (2 * sigma ** 2))
    return out


class MPIICrops(Dataset):
    """Person crops already resized to INPUT_SIZE, annotations in <split>.json."""

    def __init__(self, cfg, split):
        self.cfg = cfg["DATA"]
        with open(os.path.join(self.cfg["ROOT"], f"{split}.json")) as f:
            self.items = json.load(f)
        self.root = self.cfg["ROOT"]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        it = self.items[i]
        img = np.load(os.path.join(self.root, it["image"])).astype(np.float32) / 255.0
        joints = np.asarray(it["joints"], dtype=np.float32)
        vis = np.asarray(it["visible"], dtype=np.float32)
        hm = gaussian_heatmaps(joints, vis, self.cfg["HEATMAP_SIZE"], self.cfg["INPUT_SIZE"], self.cfg["SIGMA"])
        return (torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(hm), torch.from_numpy(joints),
                torch.from_numpy(vis), torch.tensor(it["head_size"], dtype=torch.float32))
