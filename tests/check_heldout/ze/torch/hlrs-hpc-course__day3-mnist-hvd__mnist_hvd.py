#!/usr/bin/env python
# Day 3 exercise: take the sequential mnist.py from day 1 and make it run with Horovod.
# Submit with:  mpirun -np 4 python mnist_hvd.py --epochs 5
# Group 7 solution
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

import horovod.torch as hvd

parser = argparse.ArgumentParser(description="MNIST exercise (Horovod)")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--test-batch-size", type=int, default=1000)
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--momentum", type=float, default=0.5)
parser.add_argument("--data-dir", default="/scratch/course/data/mnist")
parser.add_argument("--no-cuda", action="store_true", default=False)
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

# EXERCISE 1: initialise horovod
hvd.init()
torch.manual_seed(42)

# EXERCISE 2: one GPU per process
if args.cuda:
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(42)

torch.set_num_threads(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
train_dataset = datasets.MNIST(args.data_dir, train=True, download=False, transform=tfm)
test_dataset = datasets.MNIST(args.data_dir, train=False, download=False, transform=tfm)

# EXERCISE 3: partition the data
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True)
test_sampler = torch.utils.data.distributed.DistributedSampler(
    test_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=args.test_batch_size,
                                          sampler=test_sampler)

model = Net()
if args.cuda:
    model.cuda()

# EXERCISE 4: scale the learning rate
optimizer = optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=args.momentum)

# EXERCISE 5: broadcast the initial state from rank 0
hvd.broadcast_parameters(model.parameters(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

# EXERCISE 6: wrap the optimizer
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def train(epoch):
    model.train()
    t0 = time.time()
    for batch_idx, (data, target) in enumerate(train_loader):
        if args.cuda:
            data, target = data.cuda(), target.cuda()
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % 100 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}] loss {loss.item():.4f}")
    if hvd.rank() == 0:
        print(f"epoch {epoch} took {time.time() - t0:.1f}s")


def test():
    model.eval()
    test_loss = 0.0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            if args.cuda:
                data, target = data.cuda(), target.cuda()
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    test_loss /= len(test_sampler)
    acc = 100.0 * correct / len(test_sampler)
    # EXERCISE 7: print the result only once
    if hvd.rank() == 0:
        print(f"Test set: average loss {test_loss:.4f}, accuracy {acc:.2f}%")


for epoch in range(1, args.epochs + 1):
    train(epoch)
    test()

# EXERCISE 8: save the model (only one process)
if hvd.rank() == 0:
    torch.save(model.state_dict(), "mnist_hvd_group7.pt")
