#!/usr/bin/env python
# coding: utf-8
# DL-Praktikum WS23/24, Team 7 -- Intel Image Classification (6 scene classes)
# exported from main.ipynb ("Download as .py"), then edited so it runs on the cluster with horovodrun.
# Data: kaggle intel-image-classification, unpacked to data/seg_train and data/seg_test

# %%
import os
import time

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms

# %% [markdown]
# ## Setup (Horovod)

# %%
hvd.init()
torch.manual_seed(42)

DATA_DIR = os.environ.get("DATA_DIR", "data")
EPOCHS = int(os.environ.get("EPOCHS", 15))
BATCH_SIZE = 64
LR = 0.01          # tuned on one GPU in the notebook (sweep in cell 14)
IMG = 150

device = torch.device("cpu")
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())

# %% [markdown]
# ## Data

# %%
train_tf = transforms.Compose([
    transforms.Resize((IMG, IMG)),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]),
])
test_tf = transforms.Compose([
    transforms.Resize((IMG, IMG)),
    transforms.ToTensor(),
    transforms.Normalize([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]),
])
trainset = datasets.ImageFolder(os.path.join(DATA_DIR, "seg_train"), transform=train_tf)
testset = datasets.ImageFolder(os.path.join(DATA_DIR, "seg_test"), transform=test_tf)

# tutorial says: sampler so that every GPU gets its own part of the data
train_sampler = DistributedSampler(trainset, shuffle=True)
trainloader = DataLoader(trainset, batch_size=BATCH_SIZE, sampler=train_sampler, num_workers=2)
testloader = DataLoader(testset, batch_size=256, shuffle=False, num_workers=2)
classes = trainset.classes
if hvd.rank() == 0:
    print(len(trainset), "train images,", len(testset), "test images, classes:", classes)

# %% [markdown]
# ## Model: ResNet18 from scratch, 6 outputs

# %%
net = models.resnet18(num_classes=len(classes)).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=LR, momentum=0.9, weight_decay=5e-4)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=net.named_parameters())
hvd.broadcast_parameters(net.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

# %% [markdown]
# ## Training

# %%
def evaluate(loader):
    # every rank runs the whole test set (it is small), so no averaging needed
    net.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            outputs = net(images)
            loss_sum += F.cross_entropy(outputs, labels, reduction="sum").item()
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.size(0)
    return loss_sum / total, correct / total


history = []
best_acc = 0.0
for epoch in range(EPOCHS):
    net.train()
    train_sampler.set_epoch(epoch)
    running_loss, t0 = 0.0, time.time()
    for i, (inputs, labels) in enumerate(trainloader):
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    test_loss, test_acc = evaluate(testloader)
    history.append((epoch, running_loss / len(trainloader), test_loss, test_acc))
    if hvd.rank() == 0:
        print(f"[{epoch + 1}] train loss {running_loss / len(trainloader):.3f}  test loss {test_loss:.3f}  "
              f"test acc {100 * test_acc:.1f}%  ({time.time() - t0:.0f}s)")
        if test_acc > best_acc:
            best_acc = test_acc
            torch.save(net.state_dict(), "team7_resnet18_best.pth")

# %%
if hvd.rank() == 0:
    torch.save(net.state_dict(), "team7_resnet18_last.pth")
    with open("history.csv", "w") as f:
        f.write("epoch,train_loss,test_loss,test_acc\n")
        for row in history:
            f.write(",".join(str(v) for v in row) + "\n")
    print("Finished Training, best test acc", best_acc)
