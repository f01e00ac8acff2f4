import glob
import os.path as osp

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from .dist import get_dist_info


class TileDataset(Dataset):
    """Pre-cut image tiles stored as <root>/<split>/img_*.npy + mask_*.npy."""

    def __init__(self, root, split, flip=False):
        self.imgs = sorted(glob.glob(osp.join(root, split, 'img_*.npy')))
        self.flip = flip

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, idx):
        img = np.load(self.imgs[idx]).astype(np.float32) / 255.0
        mask = np.load(self.imgs[idx].replace('img_', 'mask_')).astype(np.int64)
        if self.flip and np.random.rand() < 0.5:
            img, mask = img[:, :, ::-1], mask[:, ::-1]
        return torch.from_numpy(img.copy()), torch.from_numpy(mask.copy())


def build_loader(cfg, split):
    ds = TileDataset(cfg['data_root'], split, flip=(split == 'train'))
    if split != 'train':
        # every rank scores the full validation split
        return DataLoader(ds, batch_size=1, shuffle=False, num_workers=cfg['workers']), None
    rank, world = get_dist_info()
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=cfg['seed'])
    loader = DataLoader(ds, batch_size=cfg['samples_per_gpu'], sampler=sampler,
                        num_workers=cfg['workers'], pin_memory=True, drop_last=True)
    return loader, sampler
