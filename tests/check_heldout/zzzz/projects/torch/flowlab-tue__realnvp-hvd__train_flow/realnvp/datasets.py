import os

import numpy as np
import torch
import torch.utils.data as tud


class NpzImages(tud.Dataset):
    """images stored as uint8 NHWC in <root>/<dataset>/<split>.npz"""

    def __init__(self, root, dataset, split):
        f = np.load(os.path.join(os.path.expanduser(root), dataset, split + ".npz"))
        self.x = f["x"]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = torch.from_numpy(self.x[i]).permute(2, 0, 1).float()
        # uniform dequantization
        return (img + torch.rand_like(img)) / 256.0


def get_loader(cfg, split, rank, world):
    ds = NpzImages(cfg.data_root, cfg.dataset, split)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=(split == "train"))
    return tud.DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, num_workers=2,
                          drop_last=(split == "train")), sampler
