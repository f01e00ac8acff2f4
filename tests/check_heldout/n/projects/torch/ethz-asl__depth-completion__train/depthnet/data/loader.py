import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class SparseDepthDataset(Dataset):
    """KITTI depth completion: (rgb, sparse lidar depth) -> dense depth. Files are pre-packed .npz."""

    def __init__(self, root, split, crop):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.crop = crop
        self.train = split == "train"

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        d = np.load(self.files[idx])
        rgb, sparse, gt = d["rgb"], d["sparse"], d["gt"]
        h, w = gt.shape
        ch, cw = self.crop
        top = h - ch
        left = np.random.randint(0, w - cw + 1) if self.train else (w - cw) // 2
        sl = (slice(top, top + ch), slice(left, left + cw))
        rgb = torch.from_numpy(rgb[sl].transpose(2, 0, 1).astype(np.float32) / 255.0)
        sparse = torch.from_numpy(sparse[sl][None].astype(np.float32))
        gt = torch.from_numpy(gt[sl][None].astype(np.float32))
        if self.train and np.random.rand() < 0.5:
            rgb, sparse, gt = rgb.flip(-1), sparse.flip(-1), gt.flip(-1)
        return rgb, sparse, gt


def build_loader(cfg, split):
    ds = SparseDepthDataset(cfg.data_dir, split, cfg.crop)
    train = split == "train"
    sampler = DistributedSampler(ds, shuffle=train)
    return DataLoader(ds, batch_size=cfg.batch_size if train else 1, sampler=sampler,
                      num_workers=cfg.num_workers, pin_memory=True, drop_last=train)
