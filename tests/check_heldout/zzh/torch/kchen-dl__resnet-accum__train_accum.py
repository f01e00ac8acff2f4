"""CIFAR-10 ResNet-18 with Horovod + gradient accumulation (to fit bs=512/GPU on 11GB cards).

usage: horovodrun -np 4 python train_accum.py --data ./data --accum-steps 4
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='./data')
parser.add_argument('--epochs', type=int, default=90)
parser.add_argument('--batch-size', type=int, default=128, help='micro-batch per GPU')
parser.add_argument('--accum-steps', type=int, default=4)
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--wd', type=float, default=5e-4)
parser.add_argument('--fp16-allreduce', action='store_true')
parser.add_argument('--ckpt', default='ckpt/resnet18_accum.pth')
parser.add_argument('--resume', action='store_true')
args = parser.parse_args()

hvd.init()
torch.manual_seed(0)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.rank())
    torch.backends.cudnn.benchmark = True
device = 'cuda' if use_cuda else 'cpu'

normalize = T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
train_set = torchvision.datasets.CIFAR10(args.data, train=True, download=False, transform=T.Compose([
    T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), normalize]))
test_set = torchvision.datasets.CIFAR10(args.data, train=False, download=False,
                                        transform=T.Compose([T.ToTensor(), normalize]))
train_sampler = torch.utils.data.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = torch.utils.data.distributed.DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                                               shuffle=False)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=4, pin_memory=True, drop_last=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, sampler=test_sampler, num_workers=4)

model = torchvision.models.resnet18(num_classes=10)
model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
model.maxpool = nn.Identity()
model.to(device)

# effective batch = batch_size * accum_steps * world size
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9,
                            weight_decay=args.wd, nesterov=True)
start_epoch = 0
if args.resume and os.path.isfile(args.ckpt):
    ckpt = torch.load(args.ckpt, map_location='cpu')
    model.load_state_dict(ckpt['model'])
    optimizer.load_state_dict(ckpt['optimizer'])
    start_epoch = ckpt['epoch'] + 1

scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
for _ in range(start_epoch):
    scheduler.step()

compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    optimizer.zero_grad()
    t0 = time.time()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x), y) / args.accum_steps
        loss.backward()
        if (i + 1) % args.accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        if i % 100 == 0 and hvd.rank() == 0:
            print(f'epoch {epoch} it {i}/{len(train_loader)} loss {loss.item() * args.accum_steps:.3f} '
                  f'{time.time() - t0:.1f}s', flush=True)


@torch.no_grad()
def test():
    model.eval()
    correct = torch.tensor(0.)
    total = torch.tensor(0.)
    for x, y in test_loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
        total += y.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name='correct')
    total = hvd.allreduce(total, op=hvd.Sum, name='total')
    return (correct / total).item()


best = 0.0
for epoch in range(start_epoch, args.epochs):
    train(epoch)
    scheduler.step()
    acc = test()
    if hvd.rank() == 0:
        print(f'epoch {epoch}: test acc {acc:.4f}')
        os.makedirs(os.path.dirname(args.ckpt) or '.', exist_ok=True)
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                    'acc': acc}, args.ckpt)
        best = max(best, acc)
