#!/usr/bin/env python
# VeRi-776 vehicle re-ID, multi-GPU with Horovod.
#   horovodrun -np 4 -H node1:4 python train_veri.py --data-root /ssd/VeRi
import argparse
import dataclasses
import logging

import numpy as np
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
import horovod.torch as hvd

from vreid.config import TrainConfig
from vreid.veri import load_split, relabel, VeRiImages
from vreid.sampler import RandomIdentitySampler
from vreid.engine import Trainer, warmup_multistep

logging.basicConfig(level=logging.INFO, format='%(asctime)s %(message)s')
log = logging.getLogger('vreid')


def parse_config():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        if f.type in (int, float, str):
            ap.add_argument('--' + f.name.replace('_', '-'), type=f.type, default=getattr(cfg, f.name))
    ns = ap.parse_args()
    return dataclasses.replace(cfg, **{k: v for k, v in vars(ns).items()})


class SoftTriplet(nn.Module):
    def forward(self, x, y):
        d = torch.cdist(x, x)
        pos = y[:, None] == y[None, :]
        ap = (d * pos).max(1).values
        an = d.masked_fill(pos, float('inf')).min(1).values
        return nn.functional.softplus(ap - an).mean()


class VehicleNet(nn.Module):
    def __init__(self, n_ids, weights):
        super().__init__()
        r = torchvision.models.resnet50(weights=None)
        try:
            r.load_state_dict(torch.load(weights, map_location='cpu'), strict=False)
        except FileNotFoundError:
            log.warning('no backbone weights at %s, training from scratch', weights)
        r.fc = nn.Identity()
        self.backbone = r
        self.bn = nn.BatchNorm1d(2048)
        self.fc = nn.Linear(2048, n_ids, bias=False)

    def forward(self, x):
        f = self.backbone(x)
        return (f, self.fc(self.bn(f))) if self.training else self.bn(f)


@torch.no_grad()
def evaluate(model, query, gallery, tf, device):
    """Rank-1 / mAP of this worker's part of the query and gallery lists."""
    model.eval()
    q = np.array_split(np.arange(len(query)), hvd.size())[hvd.rank()]
    g = np.array_split(np.arange(len(gallery)), hvd.size())[hvd.rank()]

    def embed(items):
        loader = DataLoader(VeRiImages(items, tf), batch_size=256, num_workers=4)
        out = [nn.functional.normalize(model(x.to(device))).cpu() for x, _, _ in loader]
        return torch.cat(out)

    qi, gi = [query[i] for i in q], [gallery[i] for i in g]
    dist = torch.cdist(embed(qi), embed(gi)).numpy()
    qv, qc = np.array([v for _, v, _ in qi]), np.array([c for _, _, c in qi])
    gv, gc = np.array([v for _, v, _ in gi]), np.array([c for _, _, c in gi])
    aps, r1 = [], []
    for i in range(len(qi)):
        order = np.argsort(dist[i])
        ok = ~((gv[order] == qv[i]) & (gc[order] == qc[i]))
        m = (gv[order] == qv[i])[ok]
        if m.sum() == 0:
            continue
        r1.append(m[0])
        prec = np.cumsum(m) / np.arange(1, len(m) + 1)
        aps.append((prec * m).sum() / m.sum())
    return float(np.mean(aps)), float(np.mean(r1))


def main():
    cfg = parse_config()
    hvd.init()
    torch.manual_seed(cfg.seed)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda', hvd.local_rank()) if use_cuda else torch.device('cpu')

    train_items, n_ids = relabel(load_split(cfg.data_root, 'image_train', 'name_train.txt'))
    query = load_split(cfg.data_root, 'image_query', 'name_query.txt')
    gallery = load_split(cfg.data_root, 'image_test', 'name_test.txt')
    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_tf = T.Compose([T.Resize(cfg.img_size), T.RandomHorizontalFlip(), T.Pad(10),
                          T.RandomCrop(cfg.img_size), T.ToTensor(), norm])
    test_tf = T.Compose([T.Resize(cfg.img_size), T.ToTensor(), norm])

    batch = cfg.num_identities * cfg.num_instances
    sampler = RandomIdentitySampler(train_items, batch, cfg.num_instances, seed=cfg.seed)
    loader = DataLoader(VeRiImages(train_items, train_tf), batch_size=batch, sampler=sampler,
                        num_workers=8, pin_memory=use_cuda, drop_last=True)

    model = VehicleNet(n_ids, cfg.backbone_weights).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.base_lr * hvd.size(),
                          momentum=cfg.momentum, weight_decay=cfg.weight_decay)
    sched = warmup_multistep(opt, cfg.warmup_iters, cfg.lr_steps, len(loader))
    trainer = Trainer(model, opt, sched, SoftTriplet(), cfg, device)

    best = 0.0
    for epoch in range(cfg.max_epochs):
        trainer.train_epoch(loader, epoch)
        if (epoch + 1) % cfg.eval_period == 0:
            mAP, r1 = evaluate(model, query, gallery, test_tf, device)
            if hvd.rank() == 0:
                log.info('epoch %d: mAP %.2f%% rank-1 %.2f%%', epoch + 1, 100 * mAP, 100 * r1)
                best = max(best, mAP)
            trainer.save(epoch + 1)
    if hvd.rank() == 0:
        log.info('best mAP %.2f%%', 100 * best)


if __name__ == '__main__':
    main()
