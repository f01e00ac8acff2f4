# -*- coding: utf-8 -*-
"""ImageNet ResNet training, Horovod version of our internal main.py.

Hyper-parameters are given for the GLOBAL batch (default 1024 = 8 GPUs x 128), as in the
paper's table; each process gets global_batch / world_size images per step, so the lr below
is the lr for the whole job and is not multiplied again.
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torchvision
from torchvision import transforms
import horovod.torch as hvd


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument('--data', type=str, default='/mnt/lustre/share/images')
    parser.add_argument('--arch', type=str, default='resnet50')
    parser.add_argument('--global-batch-size', type=int, default=1024)
    parser.add_argument('--accum-steps', type=int, default=1, help='backward passes per allreduce')
    parser.add_argument('--lr', type=float, default=0.4, help='lr for the global batch')
    parser.add_argument('--warmup-iters', type=int, default=2500)
    parser.add_argument('--epochs', type=int, default=100)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--fp16', action='store_true', help='autocast + fp16 allreduce')
    parser.add_argument('--save-path', type=str, default='checkpoints/r50')
    parser.add_argument('--resume', type=str, default='')
    parser.add_argument('--print-freq', type=int, default=100)
    return parser.parse_args()


class ShardSampler(torch.utils.data.Sampler):
    """Same permutation on every rank (seeded by epoch), rank takes every size-th index."""

    def __init__(self, n, rank, world_size, seed=0):
        self.n, self.rank, self.world_size, self.seed = n, rank, world_size, seed
        self.epoch = 0
        self.num_samples = n // world_size

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        perm = torch.randperm(self.n, generator=g)[:self.num_samples * self.world_size]
        return iter(perm[self.rank::self.world_size].tolist())

    def __len__(self):
        return self.num_samples


def main():
    args = parse()
    hvd.init()
    # one visible GPU per process, must happen before CUDA is initialised
    os.environ['CUDA_VISIBLE_DEVICES'] = str(hvd.local_rank())
    rank, world_size = hvd.rank(), hvd.size()
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    assert args.global_batch_size % (world_size * args.accum_steps) == 0
    batch_size = args.global_batch_size // (world_size * args.accum_steps)

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_set = torchvision.datasets.ImageFolder(os.path.join(args.data, 'train'), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    val_set = torchvision.datasets.ImageFolder(os.path.join(args.data, 'val'), transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    sampler = ShardSampler(len(train_set), rank, world_size, seed=args.seed)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=batch_size, sampler=sampler,
                                               num_workers=6, pin_memory=True, drop_last=True)

    model = torchvision.models.__dict__[args.arch]().to(device)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.fp16 else hvd.Compression.none,
                                         backward_passes_per_step=args.accum_steps)
    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location='cpu') if rank == 0 else None
        ckpt = hvd.broadcast_object(ckpt, root_rank=0, name='resume')
        model.load_state_dict(ckpt['model'])
        optimizer.load_state_dict(ckpt['optimizer'])
        start_epoch = ckpt['epoch'] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    iters_per_epoch = len(train_loader) // args.accum_steps
    for epoch in range(start_epoch, args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        end = time.time()
        optimizer.zero_grad()
        for i, (images, target) in enumerate(train_loader):
            if i >= iters_per_epoch * args.accum_steps:
                break  # drop an incomplete accumulation group
            it = epoch * iters_per_epoch + i // args.accum_steps
            lr = args.lr * min(1.0, (it + 1) / args.warmup_iters) * (0.1 ** (epoch // 30))
            for group in optimizer.param_groups:
                group['lr'] = lr
            images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
            with torch.autocast(device_type=device.type, enabled=args.fp16 and device.type == 'cuda'):
                loss = criterion(model(images), target) / args.accum_steps
            loss.backward()
            if (i + 1) % args.accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
            if rank == 0 and i % args.print_freq == 0:
                print('Epoch[{}] Iter[{}/{}] loss {:.4f} lr {:.5f} time {:.3f}'.format(
                    epoch, i, len(train_loader), loss.item() * args.accum_steps, lr, time.time() - end))
                end = time.time()

        # validation on rank 0 only, over the whole val set
        if rank == 0:
            model.eval()
            correct = total = 0
            val_loader = torch.utils.data.DataLoader(val_set, batch_size=200, shuffle=False, num_workers=6)
            with torch.no_grad():
                for images, target in val_loader:
                    images, target = images.to(device), target.to(device)
                    correct += (model(images).argmax(dim=1) == target).sum().item()
                    total += target.size(0)
            print('Epoch[{}] * Prec@1 {:.3f}'.format(epoch, 100.0 * correct / total))
            os.makedirs(args.save_path, exist_ok=True)
            torch.save({'epoch': epoch, 'arch': args.arch, 'model': model.state_dict(),
                        'optimizer': optimizer.state_dict()},
                       os.path.join(args.save_path, 'ckpt_epoch_{}.pth'.format(epoch)))


if __name__ == '__main__':
    main()
