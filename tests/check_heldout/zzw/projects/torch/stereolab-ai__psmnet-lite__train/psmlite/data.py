import os
import glob

import numpy as np
import torch
from torch.utils.data import Dataset


class StereoPairs(Dataset):
    """Left/right/disparity triplets stored as .npz files (one per frame)."""

    def __init__(self, root, files, crop=(128, 256)):
        self.root = root
        self.files = files
        self.crop = crop

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        f = np.load(os.path.join(self.root, self.files[i]))
        h, w = self.crop
        left = torch.from_numpy(f["left"][:, :h, :w]).float() / 255.0
        right = torch.from_numpy(f["right"][:, :h, :w]).float() / 255.0
        disp = torch.from_numpy(f["disp"][:h, :w]).float()
        return left, right, disp


def list_frames(root, split):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(root, split, "*.npz")))


def partition(files, rank, world):
    """Every rank gets the same number of frames: drop the tail, then stride."""
    usable = len(files) - len(files) % world
    return files[:usable][rank::world]
