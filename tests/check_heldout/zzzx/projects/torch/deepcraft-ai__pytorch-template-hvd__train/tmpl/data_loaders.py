import numpy as np
import torch
from torch.utils.data import TensorDataset

from tmpl.base import BaseDataLoader


class NpzDataLoader(BaseDataLoader):
    """
    MNIST-like arrays stored in one .npz (x: N x 28 x 28 uint8, y: N)
    """
    def __init__(self, data_dir, batch_size, shuffle=True, validation_split=0.0, num_workers=1,
                 num_replicas=1, rank=0):
        self.data_dir = data_dir
        arrays = np.load(data_dir)
        x = torch.from_numpy(arrays['x']).float().div_(255.).sub_(0.1307).div_(0.3081).unsqueeze(1)
        y = torch.from_numpy(arrays['y']).long()
        self.dataset = TensorDataset(x, y)
        super().__init__(self.dataset, batch_size, shuffle, validation_split, num_workers,
                         num_replicas=num_replicas, rank=rank)
