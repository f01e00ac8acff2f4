"""FGVC-Aircraft fine-tuning (course project, multi-GPU via Horovod).

    horovodrun -np 4 python train.py [--config configs/aircraft.yaml] [--epochs 30]
"""
import argparse

import torch
import torchvision
import yaml
import horovod.torch as hvd

from fgvc import dist
from fgvc.data import build_loaders
from fgvc.engine import build_optimizer, train_epoch, evaluate
from fgvc.checkpoint import Checkpointer
from fgvc.logger import RankZeroWriter


def load_config():
    ap = argparse.ArgumentParser()
    ap.add_argument('--config', default='configs/aircraft.yaml')
    ap.add_argument('--epochs', type=int, default=None)
    ap.add_argument('--no-pretrained', action='store_true')
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    if args.epochs is not None:
        cfg['epochs'] = args.epochs
    cfg['pretrained'] = not args.no_pretrained
    return cfg


def main():
    cfg = load_config()
    device = dist.setup()
    train_loader, test_loader, sampler = build_loaders(cfg)

    weights = 'DEFAULT' if cfg['pretrained'] else None
    model = torchvision.models.__dict__[cfg['arch']](weights=weights)
    model.fc = torch.nn.Linear(model.fc.in_features, cfg['num_classes'])
    model.to(device)

    optimizer = build_optimizer(cfg, model)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    writer = RankZeroWriter(cfg['out_dir'])
    ckpt = Checkpointer(cfg['out_dir'])
    for epoch in range(cfg['epochs']):
        sampler.set_epoch(epoch)
        loss = train_epoch(model, train_loader, optimizer, cfg, epoch, device)
        acc = evaluate(model, test_loader, device)
        writer.add_scalar('train/last_loss', loss, epoch)
        writer.add_scalar('test/acc', acc, epoch)
        ckpt.step(model, epoch, acc)


if __name__ == '__main__':
    main()
