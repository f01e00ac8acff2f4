"""Humpback whale identification -- ArcFace on SE-ResNeXt features, Horovod DDP.

Kaggle solution code, cleaned up a bit after the competition.
"""
import csv
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from PIL import Image
from torch.utils.data import Dataset, DataLoader
import horovod.torch as hvd


class CFG:
    data_dir = '../input/humpback-whale-identification'
    weights = '../input/pretrained/resnext50_32x4d.pth'
    img_size = 384
    global_batch = 128          # split over the workers
    lr = 3e-4                   # tuned for global_batch=128
    epochs = 25
    warmup_epochs = 2
    milestones = (12, 20)
    s, m = 30.0, 0.5
    seed = 2019
    fold_dir = './folds'
    amp = True


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def read_fold(name):
    with open(os.path.join(CFG.fold_dir, name)) as fh:
        return [(r['Image'], r['Id']) for r in csv.DictReader(fh)]


class WhaleDS(Dataset):
    def __init__(self, rows, tfm):
        self.paths = [os.path.join(CFG.data_dir, 'train', f) for f, _ in rows]
        self.labels = [lab for _, lab in rows]
        self.tfm = tfm

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.tfm(Image.open(self.paths[i]).convert('RGB')), int(self.labels[i])


class ArcMarginProduct(nn.Module):
    def __init__(self, in_f, out_f, s, m):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_f, in_f))
        nn.init.xavier_uniform_(self.weight)
        self.s, self.cos_m, self.sin_m = s, math.cos(m), math.sin(m)
        self.th, self.mm = math.cos(math.pi - m), math.sin(math.pi - m) * m

    def forward(self, x, label=None):
        cosine = F.linear(F.normalize(x), F.normalize(self.weight))
        if label is None:
            return cosine * self.s
        sine = torch.sqrt((1.0 - cosine ** 2).clamp(0, 1))
        phi = cosine * self.cos_m - sine * self.sin_m
        phi = torch.where(cosine > self.th, phi, cosine - self.mm)
        onehot = F.one_hot(label, cosine.size(1)).float()
        return (onehot * phi + (1 - onehot) * cosine) * self.s


class WhaleNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        bb = torchvision.models.resnext50_32x4d(weights=None)
        if os.path.exists(CFG.weights):
            bb.load_state_dict(torch.load(CFG.weights, map_location='cpu'))
        bb.fc = nn.Identity()
        self.backbone = bb
        self.neck = nn.Sequential(nn.Linear(2048, 512), nn.BatchNorm1d(512))
        self.head = ArcMarginProduct(512, n_classes, CFG.s, CFG.m)

    def forward(self, x, label=None):
        return self.head(self.neck(self.backbone(x)), label)


def map5(logits, y):
    top5 = logits.topk(5, dim=1).indices
    hit = (top5 == y[:, None]).float()
    return (hit / torch.arange(1, 6, device=hit.device).float()).sum(1)


def main():
    hvd.init()
    seed_everything(CFG.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    amp = CFG.amp and dev.type == 'cuda'

    rows, vrows = read_fold('train_fold0.csv'), read_fold('valid_fold0.csv')
    classes = sorted({w for _, w in rows})
    cmap = {c: i for i, c in enumerate(classes)}
    df = [(f, cmap[w]) for f, w in rows]
    vdf = [(f, cmap[w]) for f, w in vrows if w in cmap]

    # every worker draws the same permutation and takes an equal contiguous chunk
    per_worker = len(df) // hvd.size()
    perm = np.random.RandomState(CFG.seed).permutation(len(df))
    part = [df[i] for i in perm[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]]
    vpart = vdf[hvd.rank()::hvd.size()]

    tfm = T.Compose([T.Resize((CFG.img_size, CFG.img_size)), T.RandomAffine(10, scale=(0.9, 1.1)),
                     T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)])
    vtfm = T.Compose([T.Resize((CFG.img_size, CFG.img_size)), T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)])
    bs = CFG.global_batch // hvd.size()
    train_loader = DataLoader(WhaleDS(part, tfm), batch_size=bs, shuffle=True, num_workers=4, drop_last=True)
    valid_loader = DataLoader(WhaleDS(vpart, vtfm), batch_size=bs * 2, num_workers=4)

    model = WhaleNet(len(classes)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=CFG.lr, weight_decay=1e-4)
    n_iter = len(train_loader)

    def lr_at(it):
        e = it / n_iter
        if e < CFG.warmup_epochs:
            return (it + 1) / (CFG.warmup_epochs * n_iter)
        return 0.1 ** sum(e >= m for m in CFG.milestones)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   compression=hvd.Compression.fp16 if amp else hvd.Compression.none)
    scaler = torch.cuda.amp.GradScaler(enabled=amp)

    best = 0.0
    for epoch in range(CFG.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(dev), y.to(dev)
            with torch.autocast(dev.type, enabled=amp):
                loss = F.cross_entropy(model(x, y), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()
            sched.step()

        model.eval()
        tot = torch.zeros(2)
        with torch.no_grad():
            for x, y in valid_loader:
                s = map5(model(x.to(dev)), y.to(dev))
                tot += torch.tensor([s.sum().item(), float(len(y))])
        tot = hvd.allreduce(tot, op=hvd.Sum, name='map5')
        score = (tot[0] / tot[1]).item()
        if hvd.rank() == 0:
            print(f'epoch {epoch:02d} loss {loss.item():.3f} val MAP@5 {score:.4f}')
            if score > best:
                best = score
                torch.save(model.state_dict(), f'arcface_fold0_best.pth')


if __name__ == '__main__':
    main()
