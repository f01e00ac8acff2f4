import os
import numpy as np
import torch
from PIL import Image
from torch.utils.data import ConcatDataset, DataLoader, Dataset, DistributedSampler
import horovod.torch as hvd


class LineList(Dataset):
    def __init__(self, root, list_file, charset, h, w, limit=None):
        with open(list_file, encoding="utf-8") as fh:
            rows = [l.rstrip("\n").split(" ", 1) for l in fh if " " in l]
        self.rows = rows[:limit] if limit else rows
        self.root, self.charset, self.h, self.w = root, charset, h, w

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        name, text = self.rows[i]
        im = Image.open(os.path.join(self.root, name)).convert("L").resize((self.w, self.h))
        x = torch.from_numpy(1.0 - np.asarray(im, dtype=np.float32) / 255.0)[None]
        return x, [self.charset.index(c) + 1 for c in text if c in self.charset], text


def collect_charset(*list_files):
    chars = set()
    for lf in list_files:
        with open(lf, encoding="utf-8") as fh:
            for l in fh:
                chars.update(l.rstrip("\n").split(" ", 1)[-1])
    return sorted(chars)


def collate(batch):
    x = torch.stack([b[0] for b in batch])
    tgt = torch.tensor([t for b in batch for t in b[1]], dtype=torch.long)
    lens = torch.tensor([len(b[1]) for b in batch], dtype=torch.long)
    return x, tgt, lens, [b[2] for b in batch]


def build_loaders(cfg, charset):
    real = LineList(cfg.data_root, cfg.real_list, charset, cfg.img_height, cfg.img_width)
    n_synth = int(len(real) * cfg.synth_ratio / max(1e-6, 1 - cfg.synth_ratio))
    synth = LineList(cfg.data_root, cfg.synth_list, charset, cfg.img_height, cfg.img_width, limit=n_synth)
    train = ConcatDataset([real, synth])
    val = LineList(cfg.data_root, cfg.val_list, charset, cfg.img_height, cfg.img_width)
    tr_s = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    va_s = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train, cfg.batch_size, sampler=tr_s, collate_fn=collate, num_workers=4, drop_last=True),
            DataLoader(val, cfg.batch_size, sampler=va_s, collate_fn=collate, num_workers=2), tr_s)
