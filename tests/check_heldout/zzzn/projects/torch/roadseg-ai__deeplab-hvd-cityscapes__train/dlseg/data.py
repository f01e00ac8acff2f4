import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class CityscapesSeg(Dataset):
    def __init__(self, root, split, crop_size=512, base_size=1024, fake=False, fake_len=16, num_classes=19):
        self.split = split
        self.crop = crop_size
        self.base = base_size
        self.fake = fake
        self.num_classes = num_classes
        if fake:
            self.items = list(range(fake_len))
        else:
            imgs = sorted(glob.glob(os.path.join(root, "leftImg8bit", split, "*", "*_leftImg8bit.png")))
            self.items = [(p, p.replace("leftImg8bit", "gtFine", 1).replace("_leftImg8bit.png", "_gtFine_labelTrainIds.png"))
                          for p in imgs]

    def _load(self, i):
        if self.fake:
            rng = np.random.RandomState(i)
            h, w = self.base // 2, self.base
            img = rng.randint(0, 255, (h, w, 3)).astype(np.uint8)
            lbl = rng.randint(0, self.num_classes, (h, w)).astype(np.int64)
            return img, lbl
        from PIL import Image
        img_p, lbl_p = self.items[i]
        return np.array(Image.open(img_p).convert("RGB")), np.array(Image.open(lbl_p)).astype(np.int64)

    def _train_aug(self, img, lbl):
        # random crop + hflip (np RNG is seeded per rank in dist_utils)
        h, w = lbl.shape
        ch, cw = min(self.crop, h), min(self.crop, w)
        y = np.random.randint(0, h - ch + 1)
        x = np.random.randint(0, w - cw + 1)
        img, lbl = img[y:y + ch, x:x + cw], lbl[y:y + ch, x:x + cw]
        if np.random.rand() < 0.5:
            img, lbl = img[:, ::-1], lbl[:, ::-1]
        return img, lbl

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        img, lbl = self._load(i)
        if self.split == "train":
            img, lbl = self._train_aug(img, lbl)
        img = (img.astype(np.float32) / 255. - MEAN) / STD
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
        return img, torch.from_numpy(np.ascontiguousarray(lbl))


def build_loaders(opts):
    train_set = CityscapesSeg(opts.data_root, "train", opts.crop_size, opts.base_size,
                              fake=opts.fake_data, num_classes=opts.num_classes)
    val_set = CityscapesSeg(opts.data_root, "val", opts.crop_size, opts.base_size,
                            fake=opts.fake_data, fake_len=4, num_classes=opts.num_classes)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=opts.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=opts.batch_size, sampler=train_sampler,
                              num_workers=opts.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=opts.val_batch_size, sampler=val_sampler,
                            num_workers=opts.workers, pin_memory=True)
    return train_loader, val_loader, train_sampler
