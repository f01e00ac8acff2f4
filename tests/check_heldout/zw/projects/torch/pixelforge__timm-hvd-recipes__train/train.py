#!/usr/bin/env python3
""" ImageNet-style training script (timm recipe, Horovod edition)

horovodrun -np 8 python train.py /data/imagenet --model resnet50 -b 128 --amp --model-ema
"""
import argparse
import logging
import os
import time
from collections import OrderedDict

import torch
import torch.nn as nn
import horovod.torch as hvd

from timmlite.models import create_model
from timmlite.data import create_loader, create_dataset
from timmlite.optim import create_optimizer, CosineLRScheduler
from timmlite.utils import AverageMeter, CheckpointSaver, ModelEmaV2, accuracy, reduce_tensor, setup_default_logging

_logger = logging.getLogger('train')

parser = argparse.ArgumentParser(description='PyTorch ImageNet Training (horovod)')
parser.add_argument('data_dir', metavar='DIR', help='path to dataset')
parser.add_argument('--model', default='resnet50', type=str)
parser.add_argument('--num-classes', type=int, default=1000)
parser.add_argument('--img-size', type=int, default=224)
parser.add_argument('-b', '--batch-size', type=int, default=128, help='per-process batch size')
parser.add_argument('--opt', default='sgd', type=str)
parser.add_argument('--lr-base', type=float, default=0.1, help='lr for a global batch of --lr-base-size')
parser.add_argument('--lr-base-size', type=int, default=256)
parser.add_argument('--weight-decay', type=float, default=1e-4)
parser.add_argument('--epochs', type=int, default=90)
parser.add_argument('--warmup-epochs', type=int, default=5)
parser.add_argument('--clip-grad', type=float, default=None)
parser.add_argument('--amp', action='store_true', default=False)
parser.add_argument('--model-ema', action='store_true', default=False)
parser.add_argument('--model-ema-decay', type=float, default=0.9998)
parser.add_argument('--resume', default='', type=str)
parser.add_argument('--output', default='./output', type=str)
parser.add_argument('-j', '--workers', type=int, default=4)
parser.add_argument('--log-interval', type=int, default=50)
parser.add_argument('--seed', type=int, default=42)


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, lr_scheduler, scaler, model_ema=None):
    losses_m = AverageMeter()
    model.train()
    num_updates = epoch * len(loader)
    for batch_idx, (input, target) in enumerate(loader):
        input, target = input.to(args.device), target.to(args.device)
        with torch.autocast(device_type=args.device.type, enabled=args.amp):
            loss = loss_fn(model(input), target)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        if args.clip_grad is not None:
            nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        if model_ema is not None:
            model_ema.update(model)
        num_updates += 1
        lr_scheduler.step_update(num_updates)
        losses_m.update(loss.item(), input.size(0))
        if args.rank == 0 and batch_idx % args.log_interval == 0:
            _logger.info(f'Train: {epoch} [{batch_idx:>4d}/{len(loader)}] loss {losses_m.avg:.4f} '
                         f'lr {optimizer.param_groups[0]["lr"]:.3e}')
    return OrderedDict([('loss', losses_m.avg)])


@torch.no_grad()
def validate(model, loader, loss_fn, args):
    losses_m, top1_m, top5_m = AverageMeter(), AverageMeter(), AverageMeter()
    model.eval()
    for input, target in loader:
        input, target = input.to(args.device), target.to(args.device)
        output = model(input)
        loss = loss_fn(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        # every rank holds the same number of (padded) samples, so the mean of means is exact
        loss, acc1, acc5 = reduce_tensor(loss, 'val_loss'), reduce_tensor(acc1, 'val_top1'), reduce_tensor(acc5, 'val_top5')
        losses_m.update(loss.item(), input.size(0))
        top1_m.update(acc1.item(), input.size(0))
        top5_m.update(acc5.item(), input.size(0))
    return OrderedDict([('loss', losses_m.avg), ('top1', top1_m.avg), ('top5', top5_m.avg)])


def main():
    setup_default_logging()
    args = parser.parse_args()

    hvd.init()
    args.rank, args.world_size = hvd.rank(), hvd.size()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        args.device = torch.device('cuda', hvd.local_rank())
    else:
        args.device = torch.device('cpu')
    torch.manual_seed(args.seed + args.rank)

    model = create_model(args.model, num_classes=args.num_classes).to(args.device)

    global_batch_size = args.batch_size * args.world_size
    args.lr = args.lr_base * global_batch_size / args.lr_base_size
    if args.rank == 0:
        _logger.info(f'lr {args.lr:.4f} for global batch {global_batch_size} ({args.world_size} x {args.batch_size})')

    optimizer = create_optimizer(model, args.opt, lr=args.lr, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.amp else hvd.Compression.none)
    scaler = torch.amp.GradScaler('cuda', enabled=args.amp and torch.cuda.is_available())

    start_epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume, map_location='cpu')
        model.load_state_dict(checkpoint['state_dict'])
        optimizer.load_state_dict(checkpoint['optimizer'])
        start_epoch = checkpoint['epoch'] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    model_ema = None
    if args.model_ema:
        # created after the broadcast so every rank's EMA starts from the same weights
        model_ema = ModelEmaV2(model, decay=args.model_ema_decay)

    dataset_train = create_dataset(args.data_dir, 'train')
    dataset_eval = create_dataset(args.data_dir, 'val')
    loader_train = create_loader(dataset_train, args.img_size, args.batch_size, is_training=True,
                                 num_workers=args.workers, num_replicas=args.world_size, rank=args.rank, seed=args.seed)
    loader_eval = create_loader(dataset_eval, args.img_size, args.batch_size, is_training=False,
                                num_workers=args.workers, num_replicas=args.world_size, rank=args.rank)

    lr_scheduler = CosineLRScheduler(optimizer, t_initial=args.epochs * len(loader_train),
                                     warmup_t=args.warmup_epochs * len(loader_train))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1).to(args.device)

    saver = None
    if args.rank == 0:
        output_dir = os.path.join(args.output, time.strftime('%Y%m%d-%H%M%S') + '-' + args.model)
        saver = CheckpointSaver(model, optimizer, args, model_ema=model_ema, checkpoint_dir=output_dir, max_history=3)

    best_metric = None
    for epoch in range(start_epoch, args.epochs):
        loader_train.sampler.set_epoch(epoch)
        train_metrics = train_one_epoch(epoch, model, loader_train, optimizer, loss_fn, args,
                                        lr_scheduler, scaler, model_ema=model_ema)
        eval_metrics = validate(model, loader_eval, loss_fn, args)
        if model_ema is not None:
            eval_metrics = validate(model_ema.module, loader_eval, loss_fn, args)
        if saver is not None:
            _logger.info(f'epoch {epoch}: train {dict(train_metrics)} eval {dict(eval_metrics)}')
            best_metric = saver.save_checkpoint(epoch, metric=eval_metrics['top1'])
    if best_metric is not None:
        _logger.info(f'*** Best top1: {best_metric[0]:.3f} (epoch {best_metric[1]})')


if __name__ == '__main__':
    main()
