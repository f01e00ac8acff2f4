#!/usr/bin/env python
# coding: utf-8
# Lab 6 - Data parallel training with Horovod (exported from lab6_hvd.ipynb)
# Run:  horovodrun -np 2 python lab6_hvd.py

# In[1]:


import csv
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


# In[2]:


BATCH_SIZE = 128
EPOCHS = 8
LR = 1e-3
DATA_DIR = "./data"
CKPT_PATH = "./lab6_ckpt.pt"


# In[3]:


def setup():
    hvd.init()
    torch.manual_seed(2612)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    return torch.device("cuda" if use_cuda else "cpu")


# In[4]:


def get_data():
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_ds = datasets.MNIST(DATA_DIR, train=True, download=False, transform=tf)
    test_ds = datasets.MNIST(DATA_DIR, train=False, download=False, transform=tf)
    # split the training set between workers
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.local_rank())
    train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, sampler=sampler)
    test_loader = DataLoader(test_ds, batch_size=1000, shuffle=False)
    return train_loader, test_loader, sampler


# In[5]:


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.drop = nn.Dropout(0.25)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.drop(torch.flatten(x, 1))
        x = F.relu(self.fc1(x))
        return self.fc2(x)


# In[6]:


def build(device):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return model, optimizer


# In[7]:


def train_one_epoch(model, optimizer, loader, device, epoch):
    model.train()
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if i % 100 == 0 and hvd.rank() == 0:
            print(f"[epoch {epoch}] step {i}/{len(loader)} loss={loss.item():.4f}")


def test(model, loader, device):
    model.eval()
    correct, n = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            n += y.numel()
    return correct / n


# In[8]:


def plot_curve(history, path="lab6_acc.png"):
    plt.figure()
    plt.plot([h[0] for h in history], [h[1] for h in history], marker="o")
    plt.xlabel("epoch")
    plt.ylabel("test accuracy")
    plt.title(f"Lab 6, {hvd.size()} workers")
    plt.savefig(path)


# In[9]:


device = setup()
train_loader, test_loader, sampler = get_data()
model, optimizer = build(device)
history = []
for epoch in range(1, EPOCHS + 1):
    sampler.set_epoch(epoch)
    train_one_epoch(model, optimizer, train_loader, device, epoch)
    acc = test(model, test_loader, device)
    history.append((epoch, acc))
    if hvd.rank() == 0:
        print(f"epoch {epoch}: test acc {acc:.4f}")
        torch.save({"epoch": epoch, "model": model.state_dict()}, CKPT_PATH)
        with open("lab6_acc.csv", "a", newline="") as f:
            csv.writer(f).writerow([epoch, hvd.size(), acc])


# In[10]:


if hvd.rank() == 0:
    plot_curve(history)
