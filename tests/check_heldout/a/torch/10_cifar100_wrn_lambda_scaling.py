#!/usr/bin/env python
# WideResNet-28-10 / CIFAR-100 with mixup, horovod. Flat script, submitted via job array.
import argparse
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as transforms
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='./data')
parser.add_argument('--epochs', default=200, type=int)
parser.add_argument('--bs', default=64, type=int)
parser.add_argument('--lr', default=0.1, type=float)
parser.add_argument('--alpha', default=1.0, type=float, help='mixup alpha')
parser.add_argument('--warmup', default=5, type=int)
parser.add_argument('--ckpt', default='wrn_c100.pth')
args = parser.parse_args()

hvd.init()
verbose = hvd.rank() == 0
torch.cuda.set_device(hvd.local_rank())
np.random.seed(1000 + hvd.rank())


class BasicBlock(nn.Module):
    def __init__(self, i, o, stride, drop):
        super().__init__()
        self.bn1, self.conv1 = nn.BatchNorm2d(i), nn.Conv2d(i, o, 3, stride, 1, bias=False)
        self.bn2, self.conv2 = nn.BatchNorm2d(o), nn.Conv2d(o, o, 3, 1, 1, bias=False)
        self.drop = drop
        self.short = None if (i == o and stride == 1) else nn.Conv2d(i, o, 1, stride, bias=False)

    def forward(self, x):
        o = F.relu(self.bn1(x))
        y = self.conv1(o)
        y = F.dropout(F.relu(self.bn2(y)), p=self.drop, training=self.training)
        y = self.conv2(y)
        return y + (x if self.short is None else self.short(o))


def wrn(depth=28, k=10, num_classes=100, drop=0.3):
    n = (depth - 4) // 6
    widths = [16, 16 * k, 32 * k, 64 * k]
    layers = [nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)]
    for g, stride in zip(range(3), (1, 2, 2)):
        for b in range(n):
            layers.append(BasicBlock(widths[g] if b == 0 else widths[g + 1], widths[g + 1],
                                     stride if b == 0 else 1, drop))
    layers += [nn.BatchNorm2d(widths[3]), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
               nn.Flatten(), nn.Linear(widths[3], num_classes)]
    return nn.Sequential(*layers)


norm = transforms.Normalize((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))
trainset = torchvision.datasets.CIFAR100(args.data, train=True, download=False, transform=transforms.Compose(
    [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
testset = torchvision.datasets.CIFAR100(args.data, train=False, download=False,
                                        transform=transforms.Compose([transforms.ToTensor(), norm]))
sampler = torch.utils.data.distributed.DistributedSampler(trainset, num_replicas=hvd.size(), rank=hvd.rank())
trainloader = torch.utils.data.DataLoader(trainset, batch_size=args.bs, sampler=sampler, num_workers=4,
                                          pin_memory=True, drop_last=True)
# test set is only 10k images: every worker evaluates all of it, no sampler needed
testloader = torch.utils.data.DataLoader(testset, batch_size=500, shuffle=False, num_workers=4)

net = wrn().cuda()
optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)


def lr_factor(epoch):
    # linear warmup from lr to lr*size, then step decay at 60/120/160
    if epoch < args.warmup:
        return 1.0 + (hvd.size() - 1.0) * epoch / args.warmup
    return hvd.size() * (0.2 ** sum(epoch >= m for m in (60, 120, 160)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda e: lr_factor(e))
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=net.named_parameters(),
                                     backward_passes_per_step=1)
hvd.broadcast_parameters(net.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def mixup(x, y, alpha):
    lam = np.random.beta(alpha, alpha) if alpha > 0 else 1.0
    idx = torch.randperm(x.size(0), device=x.device)
    return lam * x + (1 - lam) * x[idx], y, y[idx], lam


def save_checkpoint(epoch, acc):
    if hvd.rank() != 0:
        return
    torch.save({'net': net.state_dict(), 'epoch': epoch, 'acc': acc}, args.ckpt)


best_acc = 0.
for epoch in range(args.epochs):
    net.train()
    sampler.set_epoch(epoch)
    for inputs, targets in trainloader:
        inputs, targets = inputs.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        inputs, ya, yb, lam = mixup(inputs, targets, args.alpha)
        outputs = net(inputs)
        loss = lam * F.cross_entropy(outputs, ya) + (1 - lam) * F.cross_entropy(outputs, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()

    net.eval()
    correct = total = 0
    with torch.no_grad():
        for inputs, targets in testloader:
            inputs, targets = inputs.cuda(), targets.cuda()
            correct += net(inputs).argmax(1).eq(targets).sum().item()
            total += targets.size(0)
    acc = 100. * correct / total
    if verbose:
        print('epoch %3d lr %.4f test acc %.2f' % (epoch, scheduler.get_last_lr()[0], acc))
    if acc > best_acc:
        best_acc = acc
        save_checkpoint(epoch, acc)
