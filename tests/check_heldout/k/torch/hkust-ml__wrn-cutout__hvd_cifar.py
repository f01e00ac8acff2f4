# Wide-ResNet-28-10 + Cutout on CIFAR-100, multi-GPU with Horovod.
# Usage: mpirun -np 4 -bind-to none python hvd_cifar.py --epochs 200 --cutout 8
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd


def get_args():
    parser = argparse.ArgumentParser(description='WRN + Cutout (Horovod)')
    parser.add_argument('--data-dir', default='./data')
    parser.add_argument('--depth', type=int, default=28)
    parser.add_argument('--widen', type=int, default=10)
    parser.add_argument('--dropout', type=float, default=0.3)
    parser.add_argument('--batch-size', type=int, default=128)
    parser.add_argument('--test-batch-size', type=int, default=500)
    parser.add_argument('--epochs', type=int, default=200)
    parser.add_argument('--lr', type=float, default=0.1)
    parser.add_argument('--momentum', type=float, default=0.9)
    parser.add_argument('--wd', type=float, default=5e-4)
    parser.add_argument('--cutout', type=int, default=8, help='cutout patch size (0 = off)')
    parser.add_argument('--save-dir', default='./checkpoints')
    parser.add_argument('--seed', type=int, default=42)
    return parser.parse_args()


class Cutout:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        if self.size <= 0:
            return img
        h, w = img.shape[1:]
        y, x = np.random.randint(h), np.random.randint(w)
        y1, y2 = np.clip(y - self.size // 2, 0, h), np.clip(y + self.size // 2, 0, h)
        x1, x2 = np.clip(x - self.size // 2, 0, w), np.clip(x + self.size // 2, 0, w)
        img = img.clone()
        img[:, y1:y2, x1:x2] = 0.
        return img


class WideBasic(nn.Module):
    def __init__(self, cin, cout, stride, dropout):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
        self.drop = nn.Dropout(dropout)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, stride, 1, bias=False)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Conv2d(cin, cout, 1, stride, bias=False)

    def forward(self, x):
        out = self.drop(self.conv1(F.relu(self.bn1(x))))
        out = self.conv2(F.relu(self.bn2(out)))
        return out + self.shortcut(x)


class WideResNet(nn.Module):
    def __init__(self, depth, widen, dropout, num_classes=100):
        super().__init__()
        n = (depth - 4) // 6
        widths = [16, 16 * widen, 32 * widen, 64 * widen]
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        layers, cin = [], widths[0]
        for i, stride in enumerate((1, 2, 2)):
            for j in range(n):
                layers.append(WideBasic(cin, widths[i + 1], stride if j == 0 else 1, dropout))
                cin = widths[i + 1]
        self.layers = nn.Sequential(*layers)
        self.bn = nn.BatchNorm2d(cin)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        out = F.relu(self.bn(self.layers(self.conv1(x))))
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))


def build_loaders(args):
    mean, std = (0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(),
                          T.Normalize(mean, std), Cutout(args.cutout)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    train_set = torchvision.datasets.CIFAR100(args.data_dir, train=True, download=False, transform=train_tf)
    test_set = torchvision.datasets.CIFAR100(args.data_dir, train=False, download=False, transform=test_tf)
    # Horovod: partition both sets across workers
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = torch.utils.data.distributed.DistributedSampler(
        test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                               num_workers=4, pin_memory=True)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=args.test_batch_size, sampler=test_sampler,
                                              num_workers=2)
    return train_loader, test_loader


def adjust_lr(optimizer, epoch, args):
    lr = args.lr * (0.2 ** sum(epoch >= m for m in (60, 120, 160)))
    for g in optimizer.param_groups:
        g['lr'] = lr
    return lr


def train(model, loader, optimizer, epoch, args):
    model.train()
    t0 = time.time()
    for batch_idx, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if hvd.rank() == 0 and batch_idx % args.log_interval == 0:
            print('epoch {} [{}/{}] loss {:.4f} ({:.1f}s)'.format(
                epoch, batch_idx * len(x), len(loader.sampler), loss.item(), time.time() - t0))


def test(model, loader):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.
    with torch.no_grad():
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            out = model(x)
            loss_sum += F.cross_entropy(out, y, reduction='sum').item()
            correct += out.argmax(1).eq(y).sum().item()
            total += y.size(0)
    return loss_sum / total, 100. * correct / total


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed)
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True

    train_loader, test_loader = build_loaders(args)
    model = WideResNet(args.depth, args.widen, args.dropout).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.wd, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    os.makedirs(args.save_dir, exist_ok=True)
    best = 0.
    for epoch in range(args.epochs):
        lr = adjust_lr(optimizer, epoch, args)
        train(model, train_loader, optimizer, epoch, args)
        test_loss, test_acc = test(model, test_loader)
        if hvd.rank() == 0:
            print('epoch {} lr {:.4f} test loss {:.4f} acc {:.2f}%'.format(epoch, lr, test_loss, test_acc))
        if test_acc > best:
            best = test_acc
            torch.save(model.state_dict(), os.path.join(args.save_dir, 'wrn_best.pt'))
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict()},
                   os.path.join(args.save_dir, 'wrn_last.pt'))


if __name__ == '__main__':
    main()
