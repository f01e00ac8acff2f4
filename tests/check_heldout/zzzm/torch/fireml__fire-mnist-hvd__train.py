"""MNIST / FashionMNIST with Horovod, CLI via python-fire.

usage:
    horovodrun -np 4 -H a:2,b:2 python train.py --dataset=fashion --epochs=12 --lr=0.01
    python train.py -- --help
"""
from __future__ import print_function

import os
import time

import fire
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

import horovod.torch as hvd


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.drop = nn.Dropout(0.25)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.drop(x), 1)
        return self.fc2(F.relu(self.fc1(x)))


DATASETS = {"mnist": datasets.MNIST, "fashion": datasets.FashionMNIST}


def make_loader(ds, batch_size, shuffle, **kw):
    # one shard per horovod process
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=shuffle)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, **kw), sampler


def train(dataset="mnist", data_dir="~/data", epochs=10, batch_size=64, test_batch_size=1000,
          lr=0.01, momentum=0.5, seed=42, log_interval=50, fp16_allreduce=False,
          save_dir="checkpoints", num_workers=2):
    hvd.init()
    torch.manual_seed(seed)
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(seed)
    torch.set_num_threads(1)

    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    data_dir = os.path.expanduser(data_dir)
    # only one process per node downloads
    if hvd.local_rank() == 0:
        DATASETS[dataset](data_dir, train=True, download=True)
    hvd.barrier()
    train_ds = DATASETS[dataset](data_dir, train=True, transform=tf)
    test_ds = DATASETS[dataset](data_dir, train=False, transform=tf)

    kw = {"num_workers": num_workers, "pin_memory": cuda}
    train_loader, train_sampler = make_loader(train_ds, batch_size, True, **kw)
    test_loader, _ = make_loader(test_ds, test_batch_size, False, **kw)

    model = Net()
    if cuda:
        model.cuda()

    optimizer = optim.SGD(model.parameters(), lr=lr * hvd.size(), momentum=momentum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    compression = hvd.Compression.fp16 if fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    for epoch in range(1, epochs + 1):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for batch_idx, (data, target) in enumerate(train_loader):
            if cuda:
                data, target = data.cuda(), target.cuda()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()
            if batch_idx % log_interval == 0 and hvd.rank() == 0:
                print("epoch {} [{}/{}] loss={:.4f}".format(
                    epoch, batch_idx * len(data), len(train_sampler), loss.item()))

        model.eval()
        test_loss, correct, seen = 0.0, 0, 0
        with torch.no_grad():
            for data, target in test_loader:
                if cuda:
                    data, target = data.cuda(), target.cuda()
                out = model(data)
                test_loss += F.cross_entropy(out, target, reduction="sum").item()
                correct += out.argmax(dim=1).eq(target).sum().item()
                seen += len(target)
        if hvd.rank() == 0:
            print("epoch {}: test loss {:.4f}, acc {:.2f}% ({:.1f}s)".format(
                epoch, test_loss / seen, 100.0 * correct / seen, time.time() - t0))
            os.makedirs(save_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict()},
                       os.path.join(save_dir, "{}_epoch{}.pt".format(dataset, epoch)))


if __name__ == "__main__":
    fire.Fire(train)
