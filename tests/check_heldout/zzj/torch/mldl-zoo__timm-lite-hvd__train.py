#!/usr/bin/env python3
""" ImageNet-ish training script, a trimmed down timm train.py running on Horovod. """
import argparse
import logging
import time

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd

from lite import (create_model, list_models, create_optimizer, create_scheduler, set_seed,
                  AverageMeter, reduce_tensor, CheckpointSaver)

_logger = logging.getLogger('train')

config_parser = argparse.ArgumentParser(description='Training Config', add_help=False)
config_parser.add_argument('-c', '--config', default='', type=str, metavar='FILE',
                           help='YAML config file specifying default arguments')

parser = argparse.ArgumentParser(description='PyTorch ImageNet Training')
group = parser.add_argument_group('Dataset parameters')
group.add_argument('data_dir', metavar='DIR')
group.add_argument('--num-classes', type=int, default=1000)
group.add_argument('-b', '--batch-size', type=int, default=128, help='per-process batch size')
group.add_argument('-j', '--workers', type=int, default=4)
group = parser.add_argument_group('Model parameters')
group.add_argument('--model', default='resnet50', choices=list_models())
group.add_argument('--drop', type=float, default=0.0)
group.add_argument('--resume', default='', type=str)
group = parser.add_argument_group('Optimizer parameters')
group.add_argument('--opt', default='sgd', choices=['sgd', 'adamw'])
group.add_argument('--momentum', type=float, default=0.9)
group.add_argument('--weight-decay', type=float, default=2e-5)
group.add_argument('--fp16-allreduce', action='store_true')
group = parser.add_argument_group('LR schedule')
group.add_argument('--lr', type=float, default=0.05)
group.add_argument('--warmup-lr', type=float, default=1e-5)
group.add_argument('--min-lr', type=float, default=1e-6)
group.add_argument('--warmup-epochs', type=int, default=3)
group.add_argument('--epochs', type=int, default=100)
group = parser.add_argument_group('Misc')
group.add_argument('--seed', type=int, default=42)
group.add_argument('--log-interval', type=int, default=50)
group.add_argument('--output', default='./output/train')


def _parse_args():
    args_config, remaining = config_parser.parse_known_args()
    if args_config.config:
        with open(args_config.config, 'r') as f:
            parser.set_defaults(**yaml.safe_load(f))
    return parser.parse_args(remaining)


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, lr_scheduler, args, device):
    model.train()
    losses = AverageMeter()
    num_updates = epoch * len(loader)
    end = time.time()
    for batch_idx, (input, target) in enumerate(loader):
        input, target = input.to(device), target.to(device)
        lr = lr_scheduler.step_update(num_updates)
        loss = loss_fn(model(input), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), input.size(0))
        num_updates += 1
        if batch_idx % args.log_interval == 0 and hvd.rank() == 0:
            _logger.info('Train: %d [%4d/%d] Loss: %.4f LR: %.3e Time: %.3fs', epoch, batch_idx,
                         len(loader), losses.avg, lr, time.time() - end)
        end = time.time()


def validate(model, loader, loss_fn, device):
    model.eval()
    loss_m, top1_m = AverageMeter(), AverageMeter()
    with torch.no_grad():
        for input, target in loader:
            input, target = input.to(device), target.to(device)
            output = model(input)
            loss = reduce_tensor(loss_fn(output, target), name='val_loss')
            acc1 = reduce_tensor((output.argmax(1) == target).float().mean() * 100, name='val_top1')
            loss_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), input.size(0))
    return {'loss': loss_m.avg, 'top1': top1_m.avg}


def main():
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(message)s')
    args = _parse_args()
    hvd.init()
    device = torch.device('cpu')
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device('cuda', hvd.local_rank())
    set_seed(args.seed, hvd.rank())

    model = create_model(args.model, num_classes=args.num_classes, drop_rate=args.drop).to(device)
    if args.resume:
        checkpoint = torch.load(args.resume, map_location='cpu')
        model.load_state_dict(checkpoint['state_dict'])

    optimizer = create_optimizer(args, model)
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    norm = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    dataset_train = datasets.ImageFolder(args.data_dir + '/train', transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    dataset_eval = datasets.ImageFolder(args.data_dir + '/val', transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), norm]))
    train_sampler = DistributedSampler(dataset_train, num_replicas=hvd.size(), rank=hvd.rank())
    eval_sampler = DistributedSampler(dataset_eval, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    loader_train = DataLoader(dataset_train, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    loader_eval = DataLoader(dataset_eval, batch_size=args.batch_size, sampler=eval_sampler,
                             num_workers=args.workers)

    lr_scheduler = create_scheduler(args, optimizer, len(loader_train))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    saver = CheckpointSaver(args.output)
    start_epoch = checkpoint['epoch'] + 1 if args.resume else 0
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(epoch, model, loader_train, optimizer, loss_fn, lr_scheduler, args, device)
        eval_metrics = validate(model, loader_eval, loss_fn, device)
        best = saver.save(model, optimizer, epoch, eval_metrics['top1'])
        if hvd.rank() == 0:
            _logger.info('Epoch %d: %s (best %s)', epoch, eval_metrics, best)


if __name__ == '__main__':
    main()
