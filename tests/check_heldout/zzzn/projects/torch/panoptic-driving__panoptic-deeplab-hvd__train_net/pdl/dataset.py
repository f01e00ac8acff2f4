import glob
import os
import random

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
import horovod.torch as hvd


def panoptic_targets(sem, inst, sigma=8):
    """center heatmap + offsets from an instance id map"""
    h, w = sem.shape
    center = np.zeros((1, h, w), np.float32)
    offset = np.zeros((2, h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w]
    for iid in np.unique(inst):
        if iid == 0:
            continue
        m = inst == iid
        cy, cx = yy[m].mean(), xx[m].mean()
        g = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * sigma ** 2))
        center[0] = np.maximum(center[0], g)
        offset[0][m], offset[1][m] = cy - yy[m], cx - xx[m]
    return center, offset


class CityscapesPanoptic(Dataset):
    def __init__(self, files, crop, train, fake=False, num_classes=19):
        self.files, self.crop, self.train, self.fake, self.nc = files, crop, train, fake, num_classes

    def __len__(self):
        return len(self.files)

    def _read(self, i):
        if self.fake:
            r = np.random.RandomState(i)
            h, w = self.crop[0] * 2, self.crop[1] * 2
            inst = np.kron(r.randint(0, 4, (h // 32, w // 32)), np.ones((32, 32), np.int64))
            return r.rand(h, w, 3).astype(np.float32), r.randint(0, self.nc, (h, w)).astype(np.int64), inst
        import cv2
        img = cv2.imread(self.files[i])[:, :, ::-1].astype(np.float32) / 255.
        sem = cv2.imread(self.files[i].replace("leftImg8bit", "gtFine_labelTrainIds"), 0).astype(np.int64)
        inst = cv2.imread(self.files[i].replace("leftImg8bit", "gtFine_instanceIds"), -1).astype(np.int64)
        return img, sem, inst

    def __getitem__(self, i):
        img, sem, inst = self._read(i)
        if self.train:
            ch, cw = self.crop
            y, x = np.random.randint(0, sem.shape[0] - ch + 1), np.random.randint(0, sem.shape[1] - cw + 1)
            img, sem, inst = img[y:y + ch, x:x + cw], sem[y:y + ch, x:x + cw], inst[y:y + ch, x:x + cw]
            if np.random.rand() < 0.5:
                img, sem, inst = img[:, ::-1], sem[:, ::-1], inst[:, ::-1]
        center, offset = panoptic_targets(sem, inst)
        t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
        return t(img.transpose(2, 0, 1)), t(sem), t(center), t(offset)


def _list(cfg, split):
    if cfg.FAKE:
        return ["fake_%04d" % i for i in range(32 if split == "train" else 4)]
    return sorted(glob.glob(os.path.join(cfg.DATA_ROOT, "leftImg8bit", split, "*", "*.png")))


def build_train_loader(cfg):
    files = _list(cfg, "train")
    # shuffle once so every worker gets a mix of cities, then take this worker's part
    rng = random.Random(cfg.SEED + hvd.rank())
    rng.shuffle(files)
    files = files[hvd.rank()::hvd.size()]
    ds = CityscapesPanoptic(list(range(len(files))) if cfg.FAKE else files, cfg.CROP, True, cfg.FAKE,
                            cfg.NUM_CLASSES)
    if cfg.FAKE:
        ds.files = [int(f.split("_")[1]) for f in files]
    return DataLoader(ds, batch_size=cfg.IMS_PER_GPU, shuffle=True, num_workers=4, drop_last=True,
                      pin_memory=True)


def build_val_loader(cfg):
    files = _list(cfg, "val")[hvd.rank()::hvd.size()]
    ds = CityscapesPanoptic(files, cfg.CROP, False, cfg.FAKE, cfg.NUM_CLASSES)
    if cfg.FAKE:
        ds.files = [int(f.split("_")[1]) for f in files]
    return DataLoader(ds, batch_size=1, shuffle=False, num_workers=2)
