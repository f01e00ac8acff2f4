#!/usr/bin/env python
# coding: utf-8

# # BirdCLEF 2023 - mel-spectrogram CNN (course project, team 5)
# Exported from `02_train_cnn.ipynb` so it can be launched with horovodrun on the lab machines.

# In[1]:


import os
import glob
import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


# In[2]:


class CFG:
    data_dir = "/data/birdclef-2023/mels_5s"
    meta = "/data/birdclef-2023/train_metadata.json"
    out_dir = "./models"
    n_mels = 128
    frames = 313
    epochs = 25
    batch_size = 48
    lr = 1e-3
    seed = 42
    n_folds = 5
    valid_fold = 0
    mixup = 0.4


DEVICE = "cuda:0"


# In[3]:


hvd.init()
torch.cuda.set_device(hvd.local_rank())
seed_everything(CFG.seed)
os.makedirs(CFG.out_dir, exist_ok=True)


# In[4]:


with open(CFG.meta) as f:
    meta = json.load(f)  # list of {"filename", "primary_label", "author"}
labels = sorted({m["primary_label"] for m in meta})
label2id = {l: i for i, l in enumerate(labels)}

# group k-fold by recordist so one author's recordings never land in train and valid
authors = sorted({m["author"] for m in meta})
author_fold = {a: i % CFG.n_folds for i, a in enumerate(np.random.RandomState(CFG.seed).permutation(authors))}
for m in meta:
    m["fold"] = author_fold[m["author"]]
train_meta = [m for m in meta if m["fold"] != CFG.valid_fold]
valid_meta = [m for m in meta if m["fold"] == CFG.valid_fold]
if hvd.rank() == 0:
    print(len(labels), "species |", len(train_meta), "train clips |", len(valid_meta), "valid clips")


# In[5]:


class MelDataset(Dataset):
    def __init__(self, items, train=True):
        self.items, self.train = items, train

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        m = self.items[i]
        x = np.load(os.path.join(CFG.data_dir, m["filename"].replace(".ogg", ".npy")))
        x = (x - x.mean()) / (x.std() + 1e-6)
        if self.train and np.random.rand() < 0.5:
            x = np.roll(x, np.random.randint(x.shape[1]), axis=1)
        return torch.from_numpy(x[None].astype(np.float32)), label2id[m["primary_label"]]


train_ds, valid_ds = MelDataset(train_meta), MelDataset(valid_meta, train=False)
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=CFG.batch_size, sampler=train_sampler, num_workers=4, drop_last=True)
valid_loader = DataLoader(valid_ds, batch_size=CFG.batch_size, sampler=valid_sampler, num_workers=4)


# In[6]:


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.MaxPool2d(2))


class BirdNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(conv_block(1, 32), conv_block(32, 64), conv_block(64, 128), conv_block(128, 256))
        self.head = nn.Linear(256, n_classes)

    def forward(self, x):
        x = self.features(x)
        return self.head(x.mean(dim=(2, 3)))


model = BirdNet(len(labels)).to(DEVICE)
optimizer = torch.optim.Adam(model.parameters(), lr=CFG.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=CFG.epochs, eta_min=1e-6)


# In[7]:


def mixup(x, y, alpha):
    lam = np.random.beta(alpha, alpha)
    perm = torch.randperm(x.size(0), device=x.device)
    return lam * x + (1 - lam) * x[perm], y, y[perm], lam


def train_one_epoch(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for x, y in train_loader:
        x, y = x.to(DEVICE), y.to(DEVICE)
        x, ya, yb, lam = mixup(x, y, CFG.mixup)
        out = model(x)
        loss = lam * F.cross_entropy(out, ya) + (1 - lam) * F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def validate():
    model.eval()
    stats = torch.zeros(2)
    for x, y in valid_loader:
        pred = model(x.to(DEVICE)).argmax(1).cpu()
        stats += torch.tensor([(pred == y).sum().item(), len(y)], dtype=torch.float32)
    stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
    return (stats[0] / stats[1]).item()


# In[8]:


best_acc = 0.0
for epoch in range(CFG.epochs):
    t0 = time.time()
    loss = train_one_epoch(epoch)
    scheduler.step()
    acc = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch:2d} | loss {loss:.4f} | val acc {acc:.4f} | {time.time() - t0:.0f}s")
        if acc > best_acc:
            best_acc = acc
            torch.save(model.state_dict(), os.path.join(CFG.out_dir, f"birdnet_fold{CFG.valid_fold}.pth"))


# In[ ]:


# leftover from the notebook: quick look at the checkpoints
if hvd.rank() == 0:
    print(sorted(glob.glob(os.path.join(CFG.out_dir, "*.pth"))))
