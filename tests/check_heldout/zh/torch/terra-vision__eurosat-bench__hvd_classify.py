#!/usr/bin/env python3
"""EuroSAT land-use classification benchmark, ResNet-18 from scratch.

Launch either with horovodrun:
    horovodrun -np 4 python hvd_classify.py --data ./EuroSAT_RGB
or let the script start its own gloo workers on this machine:
    python hvd_classify.py --data ./EuroSAT_RGB --spawn 4
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, random_split
from torch.utils.data.distributed import DistributedSampler


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument('--data', default='./EuroSAT_RGB')
    p.add_argument('--epochs', type=int, default=30)
    p.add_argument('--bs', type=int, default=64, help='per-worker batch size')
    p.add_argument('--lr', type=float, default=0.05, help='lr for a batch of 256')
    p.add_argument('--warmup', type=int, default=3)
    p.add_argument('--amp', action='store_true')
    p.add_argument('--out', default='ckpt_eurosat')
    p.add_argument('--spawn', type=int, default=0, help='start N local gloo workers with horovod.run')
    return p


def cosine_warmup(step, total, warmup):
    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def worker(args):
    import horovod.torch as hvd

    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda' if use_cuda else 'cpu')
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    tf_train = T.Compose([T.RandomResizedCrop(64, scale=(0.6, 1.0)), T.RandomHorizontalFlip(),
                          T.RandomVerticalFlip(), T.ToTensor(),
                          T.Normalize([0.344, 0.380, 0.408], [0.203, 0.137, 0.116])])
    tf_eval = T.Compose([T.ToTensor(), T.Normalize([0.344, 0.380, 0.408], [0.203, 0.137, 0.116])])
    full = torchvision.datasets.ImageFolder(args.data)
    n_val = len(full) // 5
    gen = torch.Generator().manual_seed(0)
    train_idx, val_idx = random_split(range(len(full)), [len(full) - n_val, n_val], generator=gen)
    train_set = torch.utils.data.Subset(torchvision.datasets.ImageFolder(args.data, tf_train), list(train_idx))
    val_set = torch.utils.data.Subset(torchvision.datasets.ImageFolder(args.data, tf_eval), list(val_idx))

    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), seed=17)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.bs, sampler=train_sampler, num_workers=4,
                              drop_last=True)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler, num_workers=4)

    model = torchvision.models.resnet18(num_classes=len(full.classes)).to(device)
    peak_lr = args.lr * args.bs * hvd.size() / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=peak_lr, momentum=0.9, weight_decay=5e-4,
                                nesterov=True)
    total_steps = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: cosine_warmup(s, total_steps, args.warmup * len(train_loader)))

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Average)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    best = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        tic = time.time()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device.type, enabled=args.amp and use_cuda):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            scheduler.step()

        model.eval()
        correct = torch.zeros(1)
        seen = torch.zeros(1)
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x.to(device)).argmax(1).cpu()
                correct += (pred == y).sum()
                seen += y.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name='val_correct')
        seen = hvd.allreduce(seen, op=hvd.Sum, name='val_seen')
        acc = (correct / seen).item()

        if hvd.rank() == 0:
            print(f'[{epoch + 1}/{args.epochs}] loss={loss.item():.3f} val_acc={acc:.4f} '
                  f'lr={scheduler.get_last_lr()[0]:.4f} ({time.time() - tic:.0f}s)', flush=True)
            if acc > best:
                best = acc
                os.makedirs(args.out, exist_ok=True)
                torch.save({'epoch': epoch, 'state_dict': model.state_dict(), 'acc': acc},
                           os.path.join(args.out, 'best.pth'))
    return best


if __name__ == '__main__':
    cli = get_parser().parse_args()
    if cli.spawn > 0:
        import horovod
        results = horovod.run(worker, args=(cli,), np=cli.spawn, use_gloo=True)
        print('best val acc per worker:', results)
    else:
        worker(cli)
