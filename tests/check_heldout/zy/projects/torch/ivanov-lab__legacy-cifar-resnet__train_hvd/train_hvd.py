#!/usr/bin/env python
"""CIFAR-10 ResNet-20 with Horovod (ported from our 2018 DDP script)."""
import argparse
import logging
import os
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable
import horovod.torch as hvd

from models import resnet20
from utils import init_distributed, metric_average, is_root, to_scalar, no_grad_ctx
from utils.data import build_loaders

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("train")

parser = argparse.ArgumentParser(description="CIFAR10 ResNet20 (horovod)")
parser.add_argument("--data", default="./data")
parser.add_argument("--epochs", type=int, default=160)
parser.add_argument("--batch-size", type=int, default=128, help="per-worker batch size")
parser.add_argument("--lr", type=float, default=0.1, help="single-worker learning rate")
parser.add_argument("--wd", type=float, default=1e-4)
parser.add_argument("--save", default="checkpoints")
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

distributed = init_distributed()
torch.manual_seed(1234)
if args.cuda:
    torch.cuda.set_device(hvd.rank())
    torch.cuda.manual_seed(1234)

train_loader, test_loader, train_sampler = build_loaders(args.data, args.batch_size)

model = resnet20()
if args.cuda:
    model.cuda()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9,
                      weight_decay=args.wd, nesterov=True)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[80, 120], gamma=0.1)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    for i, (images, target) in enumerate(train_loader):
        if args.cuda:
            images, target = images.cuda(non_blocking=True), target.cuda(non_blocking=True)
        images, target = Variable(images), Variable(target)
        optimizer.zero_grad()
        loss = criterion(model(images), target)
        loss.backward()
        optimizer.step()
        if i % 50 == 0 and is_root():
            log.info("epoch %d iter %d loss %.4f (%.1fs)", epoch, i, to_scalar(loss), time.time() - t0)


def validate(epoch):
    model.eval()
    loss_sum, correct, seen = 0.0, 0, 0
    with no_grad_ctx():
        for images, target in test_loader:
            if args.cuda:
                images, target = images.cuda(), target.cuda()
            output = model(images)
            loss_sum += to_scalar(criterion(output, target)) * target.size(0)
            correct += output.max(1)[1].eq(target).sum().item()
            seen += target.size(0)
    val_loss = metric_average(loss_sum / seen, "val_loss")
    val_acc = metric_average(correct / seen, "val_acc")
    if is_root():
        log.info("epoch %d: val_loss %.4f val_acc %.4f", epoch, val_loss, val_acc)
    return val_acc


best = 0.0
for epoch in range(args.epochs):
    train(epoch)
    acc = validate(epoch)
    scheduler.step()
    if is_root():
        os.makedirs(args.save, exist_ok=True)
        state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
        torch.save(state, os.path.join(args.save, "last.pth"))
        if acc > best:
            best = acc
            torch.save(state, os.path.join(args.save, "best.pth"))
