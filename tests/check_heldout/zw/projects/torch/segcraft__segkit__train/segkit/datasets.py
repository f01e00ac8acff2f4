import glob
import math
import os

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler


class NpySegDataset(Dataset):
    """<root>/<split>/*_img.npy (H, W, 3 uint8) with matching *_seg.npy label maps."""

    def __init__(self, root, split, crop_size=None):
        self.imgs = sorted(glob.glob(os.path.join(root, split, '*_img.npy')))
        self.crop_size = crop_size

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, idx):
        img = np.load(self.imgs[idx]).astype(np.float32) / 255.0
        seg = np.load(self.imgs[idx].replace('_img.npy', '_seg.npy')).astype(np.int64)
        if self.crop_size is not None:
            ch, cw = self.crop_size
            y = np.random.randint(0, img.shape[0] - ch + 1)
            x = np.random.randint(0, img.shape[1] - cw + 1)
            img, seg = img[y:y + ch, x:x + cw], seg[y:y + ch, x:x + cw]
            if np.random.rand() < 0.5:
                img, seg = img[:, ::-1], seg[:, ::-1]
        return torch.from_numpy(img.transpose(2, 0, 1).copy()), torch.from_numpy(seg.copy())


def build_dataset(cfg):
    cfg = dict(cfg)
    assert cfg.pop('type') == 'NpySegDataset'
    return NpySegDataset(**cfg)


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas, rank, shuffle=True):
        self.dataset, self.num_replicas, self.rank, self.shuffle = dataset, num_replicas, rank, shuffle
        self.num_samples = int(math.ceil(len(dataset) / num_replicas)) if shuffle else len(range(rank, len(dataset), num_replicas))
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        if not self.shuffle:
            return iter(range(self.rank, len(self.dataset), self.num_replicas))
        indices = np.random.permutation(len(self.dataset)).tolist()
        indices += indices[:self.total_size - len(indices)]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples
