import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class BDDSeg(Dataset):
    def __init__(self, root, split, task, size, train, dummy=False, n_classes=3):
        self.size, self.train, self.dummy, self.n_classes = tuple(size), train, dummy, n_classes
        if dummy:
            self.names = ["%05d" % i for i in range(32 if train else 4)]
        else:
            self.img_dir = os.path.join(root, "images", "100k", split)
            self.lbl_dir = os.path.join(root, "labels", task, "masks", split)
            self.names = sorted(n[:-4] for n in os.listdir(self.img_dir))

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        if self.dummy:
            r = np.random.RandomState(i)
            img = r.rand(720, 1280, 3).astype(np.float32)
            lbl = r.randint(0, self.n_classes, (720, 1280)).astype(np.int64)
        else:
            import cv2
            img = cv2.imread(os.path.join(self.img_dir, self.names[i] + ".jpg"))[:, :, ::-1] / 255.0
            lbl = cv2.imread(os.path.join(self.lbl_dir, self.names[i] + ".png"), 0).astype(np.int64)
        if self.train:
            h, w = self.size
            s = np.random.uniform(0.75, 1.5)
            ch, cw = min(int(h * s), 720), min(int(w * s), 1280)
            y, x = np.random.randint(0, 720 - ch + 1), np.random.randint(0, 1280 - cw + 1)
            img, lbl = img[y:y + ch, x:x + cw], lbl[y:y + ch, x:x + cw]
            if np.random.rand() < 0.5:
                img, lbl = img[:, ::-1], lbl[:, ::-1]
            img = torch.nn.functional.interpolate(torch.from_numpy(img.transpose(2, 0, 1).copy()).float()[None],
                                                  self.size, mode="bilinear", align_corners=False)[0]
            lbl = torch.nn.functional.interpolate(torch.from_numpy(lbl.copy())[None, None].float(),
                                                  self.size, mode="nearest")[0, 0].long()
            return img, lbl
        return torch.from_numpy(img.transpose(2, 0, 1).copy()).float(), torch.from_numpy(lbl.copy())


def get_loaders(opts, n_classes):
    tr = BDDSeg(opts.root, "train", opts.task, opts.size, True, opts.dummy, n_classes)
    va = BDDSeg(opts.root, "val", opts.task, opts.size, False, opts.dummy, n_classes)
    tr_sampler = DistributedSampler(tr, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=opts.seed)
    va_sampler = DistributedSampler(va, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    tr_loader = DataLoader(tr, batch_size=opts.batch_size, sampler=tr_sampler, num_workers=4, drop_last=True)
    va_loader = DataLoader(va, batch_size=2, sampler=va_sampler, num_workers=2)
    return tr_loader, tr_sampler, va_loader
