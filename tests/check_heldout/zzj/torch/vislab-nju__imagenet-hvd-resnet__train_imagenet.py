#!/usr/bin/env python
"""ImageNet training with Horovod (adapted from the horovod pytorch_imagenet_resnet50 example).

    horovodrun -np 16 -H server1:4,server2:4,server3:4,server4:4 python train_imagenet.py --arch resnet50
"""
import argparse
import os

import torch
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed
from torchvision import datasets, transforms
import horovod.torch as hvd
from tqdm import tqdm

from models import get_model, model_names
from utils import Metric, accuracy, adjust_learning_rate, save_checkpoint, find_resume_epoch
from utils.lr_schedule import lr_scaler

parser = argparse.ArgumentParser(description='PyTorch ImageNet Example',
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
parser.add_argument('--train-dir', default=os.path.expanduser('~/imagenet/train'),
                    help='path to training data')
parser.add_argument('--val-dir', default=os.path.expanduser('~/imagenet/validation'),
                    help='path to validation data')
parser.add_argument('--checkpoint-format', default='./checkpoints/checkpoint-{epoch}.pth.tar',
                    help='checkpoint file format')
parser.add_argument('--arch', default='resnet50', choices=model_names())
parser.add_argument('--fp16-allreduce', action='store_true', default=False,
                    help='use fp16 compression during allreduce')
parser.add_argument('--batches-per-allreduce', type=int, default=1,
                    help='number of batches processed locally before executing allreduce across workers')
parser.add_argument('--use-adasum', action='store_true', default=False)
parser.add_argument('--batch-size', type=int, default=32, help='input batch size for training')
parser.add_argument('--val-batch-size', type=int, default=32, help='input batch size for validation')
parser.add_argument('--epochs', type=int, default=90)
parser.add_argument('--base-lr', type=float, default=0.0125, help='learning rate for a single GPU')
parser.add_argument('--warmup-epochs', type=float, default=5)
parser.add_argument('--momentum', type=float, default=0.9)
parser.add_argument('--wd', type=float, default=0.00005, help='weight decay')
parser.add_argument('--no-cuda', action='store_true', default=False)
parser.add_argument('--seed', type=int, default=42)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    train_loss = Metric('train_loss')
    train_accuracy = Metric('train_accuracy')

    with tqdm(total=len(train_loader), desc='Train Epoch     #{}'.format(epoch + 1),
              disable=not verbose) as t:
        for batch_idx, (data, target) in enumerate(train_loader):
            adjust_learning_rate(optimizer, epoch, batch_idx, len(train_loader), args)
            if args.cuda:
                data, target = data.cuda(), target.cuda()
            optimizer.zero_grad()
            # split the allreduce batch into sub-batches that fit in memory
            for i in range(0, len(data), args.batch_size):
                data_batch = data[i:i + args.batch_size]
                target_batch = target[i:i + args.batch_size]
                output = model(data_batch)
                train_accuracy.update(accuracy(output, target_batch))
                loss = F.cross_entropy(output, target_batch)
                train_loss.update(loss)
                loss.div_(-(-len(data) // args.batch_size))
                loss.backward()
            optimizer.step()
            t.set_postfix({'loss': train_loss.avg.item(), 'accuracy': 100. * train_accuracy.avg.item()})
            t.update(1)


def validate(epoch):
    model.eval()
    val_loss = Metric('val_loss')
    val_accuracy = Metric('val_accuracy')
    with tqdm(total=len(val_loader), desc='Validate Epoch  #{}'.format(epoch + 1),
              disable=not verbose) as t:
        with torch.no_grad():
            for data, target in val_loader:
                if args.cuda:
                    data, target = data.cuda(), target.cuda()
                output = model(data)
                val_loss.update(F.cross_entropy(output, target))
                val_accuracy.update(accuracy(output, target))
                t.set_postfix({'loss': val_loss.avg.item(), 'accuracy': 100. * val_accuracy.avg.item()})
                t.update(1)
    return val_loss.avg.item(), val_accuracy.avg.item()


if __name__ == '__main__':
    args = parser.parse_args()
    args.cuda = not args.no_cuda and torch.cuda.is_available()
    allreduce_batch_size = args.batch_size * args.batches_per_allreduce

    hvd.init()
    torch.manual_seed(args.seed)
    if args.cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(args.seed)
    cudnn_benchmark = True
    torch.backends.cudnn.benchmark = cudnn_benchmark

    resume_from_epoch = find_resume_epoch(args.checkpoint_format, args.epochs)
    verbose = 1 if hvd.rank() == 0 else 0

    kwargs = {'num_workers': 4, 'pin_memory': True} if args.cuda else {}
    train_dataset = datasets.ImageFolder(
        args.train_dir,
        transform=transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]))
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = torch.utils.data.DataLoader(
        train_dataset, batch_size=allreduce_batch_size, sampler=train_sampler, **kwargs)

    val_dataset = datasets.ImageFolder(
        args.val_dir,
        transform=transforms.Compose([
            transforms.Resize(256),
            transforms.CenterCrop(224),
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]))
    val_sampler = torch.utils.data.distributed.DistributedSampler(
        val_dataset, num_replicas=hvd.size(), rank=hvd.rank())
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=args.val_batch_size,
                                             sampler=val_sampler, **kwargs)

    model = get_model(args.arch, num_classes=len(train_dataset.classes))
    if args.cuda:
        model.cuda()

    optimizer = optim.SGD(model.parameters(), lr=(args.base_lr * lr_scaler(args)),
                          momentum=args.momentum, weight_decay=args.wd)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(),
        compression=compression,
        backward_passes_per_step=args.batches_per_allreduce,
        op=hvd.Adasum if args.use_adasum else hvd.Average)

    # Restore from a previous checkpoint, if initial_epoch is specified.
    # Horovod: restore on the first worker which will broadcast weights to other workers.
    if resume_from_epoch > 0 and hvd.rank() == 0:
        filepath = args.checkpoint_format.format(epoch=resume_from_epoch)
        checkpoint = torch.load(filepath, map_location='cpu')
        model.load_state_dict(checkpoint['model'])
        optimizer.load_state_dict(checkpoint['optimizer'])

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(resume_from_epoch, args.epochs):
        train(epoch)
        val_loss, val_acc = validate(epoch)
        save_checkpoint(model, optimizer, epoch, args.checkpoint_format)
