# Batch-size scaling study on CIFAR-10 (ResNet-18), Horovod.
# For each per-GPU batch size we train a few epochs with the linear scaling rule
# and dump throughput + accuracy to results/bs_<N>.json.
#
#   horovodrun -np 8 -H node1:4,node2:4 python bs_sweep.py --batch-sizes 32 64 128 256
import argparse
import json
import os
import time

import torch
import torch.nn as nn
import torch.backends.cudnn as cudnn
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--batch-sizes', type=int, nargs='+', default=[32, 64, 128, 256])
parser.add_argument('--base-lr', type=float, default=0.1, help='lr for a global batch of 256')
parser.add_argument('--epochs', type=int, default=3)
parser.add_argument('--data', default=os.path.expanduser('~/datasets/cifar10'))
parser.add_argument('--out', default='results')
parser.add_argument('--fp16-allreduce', action='store_true')
args = parser.parse_args()

hvd.init()
torch.manual_seed(0)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
    cudnn.benchmark = True
device = 'cuda' if use_cuda else 'cpu'

norm = T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
test_tf = T.Compose([T.ToTensor(), norm])

if hvd.local_rank() == 0:
    torchvision.datasets.CIFAR10(args.data, train=True, download=True)
hvd.barrier()
trainset = torchvision.datasets.CIFAR10(args.data, train=True, transform=train_tf)
testset = torchvision.datasets.CIFAR10(args.data, train=False, transform=test_tf)
train_sampler = torch.utils.data.distributed.DistributedSampler(trainset, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = torch.utils.data.distributed.DistributedSampler(testset, num_replicas=hvd.size(), rank=hvd.rank(),
                                                               shuffle=False)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
criterion = nn.CrossEntropyLoss()


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            correct += (model(images).argmax(dim=1) == labels).sum().item()
            total += labels.size(0)
    return correct / total


os.makedirs(args.out, exist_ok=True)
for bs in args.batch_sizes:
    global_bs = bs * hvd.size()
    lr = args.base_lr * global_bs / 256
    train_loader = torch.utils.data.DataLoader(trainset, batch_size=bs, sampler=train_sampler,
                                               num_workers=4, pin_memory=use_cuda)
    test_loader = torch.utils.data.DataLoader(testset, batch_size=256, sampler=test_sampler)

    model = torchvision.models.resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root=0)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))

    imgs_per_sec = []
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
        imgs_per_sec.append(len(train_loader) * global_bs / (time.time() - t0))
        acc = evaluate(model, test_loader)
        if hvd.rank() == 0:
            print(f'bs={bs} (global {global_bs}) lr={lr:.3f} epoch={epoch} loss={loss.item():.3f} '
                  f'acc={acc:.4f} img/s={imgs_per_sec[-1]:.0f}')

    if hvd.rank() == 0:
        with open(os.path.join(args.out, f'bs_{bs}.json'), 'w') as f:
            json.dump({'batch_size': bs, 'global_batch': global_bs, 'lr': lr, 'world': hvd.size(),
                       'final_acc': acc, 'imgs_per_sec': imgs_per_sec}, f, indent=1)
        torch.save(model.state_dict(), os.path.join(args.out, f'resnet18_bs{bs}.pt'))
