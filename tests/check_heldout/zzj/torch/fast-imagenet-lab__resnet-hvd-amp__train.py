import argparse
import dataclasses
import math
import time

import torch
import torch.nn as nn
import torchvision.models as models
import horovod.torch as hvd

from fastin.config import Config
from fastin.data import make_loaders
from fastin.meter import DistAverage
from fastin import ckpt


def get_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        kind = (lambda s: s.lower() in ('1', 'true')) if f.type is bool else f.type
        parser.add_argument('--' + f.name.replace('_', '-'), type=kind, default=f.default)
    return Config(**vars(parser.parse_args()))


def lr_lambda(cfg, steps_per_epoch):
    warm = cfg.warmup_epochs * steps_per_epoch
    total = cfg.epochs * steps_per_epoch

    def fn(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))
    return fn


def main():
    hvd.init()
    cfg = get_config()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda' if use_cuda else 'cpu')

    train_loader, val_loader, train_sampler = make_loaders(cfg)
    model = models.__dict__[cfg.arch]().to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum,
                                weight_decay=cfg.weight_decay, nesterov=True)
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(cfg, len(train_loader)))
    scaler = torch.amp.GradScaler('cuda', enabled=cfg.amp and use_cuda)

    start_epoch = 0
    path = ckpt.latest(cfg) if hvd.rank() == 0 else None
    if path is not None:
        state = torch.load(path, map_location='cpu')
        model.load_state_dict(state['model'])
        optimizer.load_state_dict(state['optimizer'])
        scaler.load_state_dict(state['scaler'])
        start_epoch = state['epoch'] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name='start_epoch')
    scaler.load_state_dict(hvd.broadcast_object(scaler.state_dict(), root_rank=0, name='scaler'))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    for _ in range(start_epoch * len(train_loader)):
        scheduler.step()

    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        tic = time.time()
        for i, (images, target) in enumerate(train_loader):
            images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=cfg.amp and use_cuda):
                loss = criterion(model(images), target)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            if i % cfg.print_freq == 0 and hvd.rank() == 0:
                print(f'[{epoch}][{i}/{len(train_loader)}] loss {loss.item():.4f} '
                      f'lr {scheduler.get_last_lr()[0]:.4f} {time.time() - tic:.1f}s', flush=True)

        model.eval()
        top1, vloss = DistAverage('val_top1'), DistAverage('val_loss')
        with torch.no_grad():
            for images, target in val_loader:
                images, target = images.to(device), target.to(device)
                out = model(images)
                vloss.update(criterion(out, target).item(), target.size(0))
                top1.update((out.argmax(1) == target).float().mean().item() * 100, target.size(0))
        acc, vl = top1.reduce(), vloss.reduce()
        if hvd.rank() == 0:
            print(f'epoch {epoch}: val loss {vl:.4f} top1 {acc:.2f}', flush=True)
        ckpt.save(cfg, epoch, model, optimizer, scaler)


if __name__ == '__main__':
    main()
