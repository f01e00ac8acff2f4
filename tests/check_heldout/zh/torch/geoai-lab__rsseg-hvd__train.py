"""Train a land-cover segmentation model on pre-cut tiles.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --config configs/potsdam_litefcn.json
"""
import argparse
import copy
import json
import logging
import random

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from rsseg import CheckpointHook, LoggerHook, build_loader, build_model, build_optimizer
from rsseg.dist import init_dist, is_master

DEFAULTS = dict(
    data_root='data/potsdam_tiles',
    work_dir='work_dirs/litefcn',
    model=dict(type='LiteFCN', in_channels=4, num_classes=6, width=32),
    optimizer=dict(type='SGD', lr=0.005, momentum=0.9, weight_decay=1e-4),
    samples_per_gpu=8,
    workers=4,
    epochs=40,
    seed=42,
    num_classes=6,
)


def merge(base, override):
    out = copy.deepcopy(base)
    for k, v in override.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument('--config', default=None)
    p.add_argument('--cfg-options', nargs='*', default=[], help='key=value overrides')
    p.add_argument('--resume', default=None)
    return p.parse_args()


class Runner:
    def __init__(self, model, optimizer, hooks):
        self.model, self.optimizer, self.hooks = model, optimizer, hooks
        self.epoch = self.iter = 0
        self.loss = 0.0

    def call(self, name):
        for h in self.hooks:
            if hasattr(h, name):
                getattr(h, name)(self)

    def train_epoch(self, loader, device):
        self.model.train()
        for img, mask in loader:
            img, mask = img.to(device), mask.to(device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(img), mask, ignore_index=255)
            loss.backward()
            self.optimizer.step()
            self.loss = loss.item()
            self.iter += 1
            self.call('after_iter')
        self.call('after_epoch')


@torch.no_grad()
def evaluate(model, loader, num_classes, device):
    model.eval()
    hist = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    for img, mask in loader:
        pred = model(img.to(device)).argmax(1)
        mask = mask.to(device)
        keep = mask < num_classes
        hist += torch.bincount(mask[keep] * num_classes + pred[keep],
                               minlength=num_classes ** 2).view(num_classes, num_classes)
    iou = hist.diag() / (hist.sum(0) + hist.sum(1) - hist.diag()).clamp(min=1)
    return iou.float().mean().item()


def main():
    args = parse_args()
    cfg = DEFAULTS
    if args.config:
        with open(args.config) as f:
            cfg = merge(cfg, json.load(f))
    for kv in args.cfg_options:
        k, v = kv.split('=', 1)
        cfg[k] = json.loads(v)

    init_dist()
    logging.basicConfig(level=logging.INFO if is_master() else logging.WARNING,
                        format='%(asctime)s %(levelname)s %(message)s')
    random.seed(cfg['seed'])
    np.random.seed(cfg['seed'])
    torch.manual_seed(cfg['seed'])
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    train_loader, sampler = build_loader(cfg, 'train')
    val_loader, _ = build_loader(cfg, 'val')
    model = build_model(cfg['model']).to(device)
    optimizer = build_optimizer(cfg['optimizer'], model)

    start_epoch = 0
    if args.resume and hvd.rank() == 0:
        ckpt = torch.load(args.resume, map_location='cpu')
        model.load_state_dict(ckpt['state_dict'])
        optimizer.load_state_dict(ckpt['optimizer'])
        start_epoch = ckpt['epoch']
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name='start_epoch')
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    runner = Runner(model, optimizer, [LoggerHook(), CheckpointHook(cfg['work_dir'])])
    for epoch in range(start_epoch, cfg['epochs']):
        runner.epoch = epoch
        sampler.set_epoch(epoch)
        runner.train_epoch(train_loader, device)
        miou = evaluate(model, val_loader, cfg['num_classes'], device)
        if is_master():
            logging.info('epoch %d mIoU %.4f', epoch, miou)


if __name__ == '__main__':
    main()
