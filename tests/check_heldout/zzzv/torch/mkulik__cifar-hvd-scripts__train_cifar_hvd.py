# finetune a small CNN on cifar-like data with horovod
# usage: mpirun -np 4 python train_cifar_hvd.py --epochs 20 --pretrained weights/base.pt
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--lr', type=float, default=0.05)
parser.add_argument('--warmup-steps', type=int, default=100)
parser.add_argument('--num-classes', type=int, default=10)
parser.add_argument('--pretrained', type=str, default='')
parser.add_argument('--log-interval', type=int, default=10)
parser.add_argument('--out', type=str, default='ckpt')
parser.add_argument('--seed', type=int, default=1234)
args = parser.parse_args()

hvd.init()
# different augmentation stream on every worker
torch.manual_seed(args.seed + hvd.rank())
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda')
else:
    device = torch.device('cpu')


class Net(nn.Module):
    def __init__(self, num_classes=100):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(64 * 8 * 8, 256)
        self.fc = nn.Linear(256, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc(x)


class LinearWarmup(object):
    def __init__(self, optimizer, warmup_steps, lr):
        self.optimizer = optimizer
        self.warmup_steps = warmup_steps
        self.lr = lr
        self.n = 0

    def step(self):
        self.n += 1
        scale = min(1.0, self.n / float(self.warmup_steps))
        for pg in self.optimizer.param_groups:
            pg['lr'] = self.lr * scale


class AverageMeter(object):
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, v, n=1):
        self.sum += v * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(1, self.count)


def metric_average(val, name):
    avg_tensor = hvd.allreduce(val, name=name)
    return avg_tensor.item()


def get_data():
    # TODO load the real npz, random tensors for now
    x = torch.randn(2000, 3, 32, 32)
    y = torch.randint(0, args.num_classes, (2000,))
    xv = torch.randn(500, 3, 32, 32)
    yv = torch.randint(0, args.num_classes, (500,))
    return TensorDataset(x, y), TensorDataset(xv, yv)


train_ds, val_ds = get_data()
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler)
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler)

model = Net()
if args.pretrained and os.path.isfile(args.pretrained):
    model.load_state_dict(torch.load(args.pretrained, map_location='cpu'))
hvd.broadcast_parameters(model.state_dict(), root_rank=0)

# new head for our number of classes
model.fc = nn.Linear(256, args.num_classes)
model.to(device)

optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
warmup = LinearWarmup(optimizer, args.warmup_steps, args.lr)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    meter = AverageMeter()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        warmup.step()
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), data.size(0))
        if batch_idx % args.log_interval == 0:
            avg = metric_average(loss.item(), 'train_loss')
            if hvd.rank() == 0:
                print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                    epoch, batch_idx * len(data), len(train_sampler), avg))
    return meter.avg


def test():
    model.eval()
    test_loss, correct = 0., 0.
    with torch.no_grad():
        for data, target in val_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction='sum').item()
            correct += output.argmax(1).eq(target).sum().item()
    test_loss /= len(val_sampler)
    acc = correct / len(val_sampler)
    test_loss = metric_average(torch.tensor(test_loss), 'avg_loss')
    acc = metric_average(torch.tensor(acc), 'avg_accuracy')
    if hvd.rank() == 0:
        print('\nTest set: Average loss: {:.4f}, Accuracy: {:.2f}%\n'.format(test_loss, 100. * acc))
    return acc


best = 0.
for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    train(epoch)
    acc = test()
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.out, 'last.pt'))
        if acc > best:
            best = acc
            torch.save(model.state_dict(), os.path.join(args.out, 'best.pt'))
        print('epoch %d took %.1fs' % (epoch, time.time() - t0))
