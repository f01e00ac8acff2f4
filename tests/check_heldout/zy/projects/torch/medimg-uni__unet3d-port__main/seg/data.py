import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class VolumeDataset(Dataset):
    """Pre-cropped volumes stored as <case>.npz with 'image' and 'label' arrays."""

    def __init__(self, root, split, patch):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.patch = patch

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        arr = np.load(self.files[idx])
        img, lab = arr["image"].astype(np.float32), arr["label"].astype(np.int64)
        d, h, w = self.patch
        img, lab = img[:d, :h, :w], lab[:d, :h, :w]
        img = (img - img.mean()) / (img.std() + 1e-6)
        return torch.from_numpy(img)[None], torch.from_numpy(lab)


def build_train_loader(cfg):
    ds = VolumeDataset(cfg.data_root, "train", cfg.patch)
    # one sampler per GPU of the node
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=True, seed=cfg.seed)
    loader = DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler,
                        num_workers=cfg.workers, pin_memory=True, drop_last=True)
    return loader, sampler


def build_val_loader(cfg):
    # validation is small (20 cases): every worker scores all of it
    ds = VolumeDataset(cfg.data_root, "val", cfg.patch)
    return DataLoader(ds, batch_size=1, shuffle=False, num_workers=2)
