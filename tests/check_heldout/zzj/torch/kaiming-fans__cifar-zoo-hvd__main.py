'''Train CIFAR10 with PyTorch + Horovod.'''
import argparse
import os

import torch
import torch.nn as nn
import torch.optim as optim
import torch.backends.cudnn as cudnn
import torchvision
import torchvision.transforms as transforms
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from models import MODELS
from utils import progress_bar, AverageMeter, save_checkpoint

parser = argparse.ArgumentParser(description='PyTorch CIFAR10 Training (Horovod)')
parser.add_argument('--lr', default=0.1, type=float, help='learning rate per worker')
parser.add_argument('--arch', default='resnet18', choices=sorted(MODELS))
parser.add_argument('--epochs', default=200, type=int)
parser.add_argument('--batch-size', default=128, type=int, help='batch size per worker')
parser.add_argument('--data', default='./data')
parser.add_argument('--checkpoint', default='checkpoint', type=str)
parser.add_argument('--resume', '-r', action='store_true', help='resume from checkpoint')
parser.add_argument('--fp16-allreduce', action='store_true', default=False)
args = parser.parse_args()

hvd.init()
device = 'cuda' if torch.cuda.is_available() else 'cpu'
if device == 'cuda':
    torch.cuda.set_device(hvd.local_rank())
    cudnn.benchmark = True
best_acc = 0  # best test accuracy
start_epoch = 0

# Data
if hvd.rank() == 0:
    print('==> Preparing data..')
transform_train = transforms.Compose([
    transforms.RandomCrop(32, padding=4),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
])
transform_test = transforms.Compose([
    transforms.ToTensor(),
    transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
])
trainset = torchvision.datasets.CIFAR10(root=args.data, train=True, download=False, transform=transform_train)
train_sampler = DistributedSampler(trainset, num_replicas=hvd.size(), rank=hvd.rank())
trainloader = torch.utils.data.DataLoader(trainset, batch_size=args.batch_size, sampler=train_sampler,
                                          num_workers=2)
testset = torchvision.datasets.CIFAR10(root=args.data, train=False, download=False, transform=transform_test)
test_sampler = DistributedSampler(testset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
testloader = torch.utils.data.DataLoader(testset, batch_size=100, sampler=test_sampler, num_workers=2)

# Model
if hvd.rank() == 0:
    print('==> Building model {}..'.format(args.arch))
net = MODELS[args.arch]().to(device)

if args.resume:
    # Load checkpoint.
    assert os.path.isdir(args.checkpoint), 'Error: no checkpoint directory found!'
    checkpoint = torch.load(os.path.join(args.checkpoint, 'checkpoint.pth.tar'), map_location='cpu')
    net.load_state_dict(checkpoint['net'])
    best_acc = checkpoint['acc']
    start_epoch = checkpoint['epoch'] + 1

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=net.named_parameters(),
                                     compression=compression)
hvd.broadcast_parameters(net.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)


# Training
def train(epoch):
    if hvd.rank() == 0:
        print('\nEpoch: %d' % epoch)
    net.train()
    train_sampler.set_epoch(epoch)
    losses = AverageMeter()
    correct = total = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()

        losses.update(loss.item(), inputs.size(0))
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
        if hvd.rank() == 0:
            progress_bar(batch_idx, len(trainloader), 'Loss: %.3f | Acc: %.3f%% (%d/%d)'
                         % (losses.avg, 100. * correct / total, correct, total))


def test(epoch):
    global best_acc
    net.eval()
    test_loss = AverageMeter()
    correct = total = 0
    with torch.no_grad():
        for batch_idx, (inputs, targets) in enumerate(testloader):
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            test_loss.update(loss.item(), inputs.size(0))
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
            if hvd.rank() == 0:
                progress_bar(batch_idx, len(testloader), 'Loss: %.3f | Acc: %.3f%% (%d/%d)'
                             % (test_loss.avg, 100. * correct / total, correct, total))

    # Save checkpoint.
    acc = 100. * correct / total
    is_best = acc > best_acc
    best_acc = max(acc, best_acc)
    save_checkpoint({'net': net.state_dict(), 'acc': acc, 'epoch': epoch},
                    is_best, checkpoint=args.checkpoint)


for epoch in range(start_epoch, args.epochs):
    train(epoch)
    test(epoch)
    scheduler.step()

if hvd.rank() == 0:
    print('Best test accuracy: %.2f%%' % best_acc)
