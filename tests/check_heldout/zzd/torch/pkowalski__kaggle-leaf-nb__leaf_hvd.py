# %% [markdown]
# # Cassava leaf disease - multi-GPU version of my Kaggle notebook
# Converted with `jupytext --to py:percent`. Run: `horovodrun -np 4 python leaf_hvd.py`

# %%
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

# %%
DATA_DIR = os.environ.get("LEAF_DATA", "../input/cassava-leaf-disease-classification/train_images_by_class")
OUT_DIR = os.environ.get("LEAF_OUT", "./working")
IMG = 256
BS = 24              # per GPU
ACCUM = 2            # micro-batches per optimizer step
BASE_LR = 1e-4       # what worked on a single P100 in the kaggle kernel
EPOCHS = 10
WARMUP = 1
SEED = 2021
VAL_FRAC = 0.15

# %%
hvd.init()
torch.manual_seed(SEED)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    DEVICE = torch.device("cuda")
else:
    DEVICE = torch.device("cpu")
print(f"hello from {hvd.rank()}/{hvd.size()} on {DEVICE}")

# %%
tfm_train = T.Compose([T.RandomResizedCrop(IMG), T.RandomHorizontalFlip(), T.RandomVerticalFlip(),
                       T.ToTensor(), T.Normalize([0.43, 0.50, 0.31], [0.22, 0.22, 0.20])])
tfm_val = T.Compose([T.Resize(IMG), T.CenterCrop(IMG), T.ToTensor(),
                     T.Normalize([0.43, 0.50, 0.31], [0.22, 0.22, 0.20])])
full_train = torchvision.datasets.ImageFolder(DATA_DIR, tfm_train)
full_val = torchvision.datasets.ImageFolder(DATA_DIR, tfm_val)

idx = list(range(len(full_train)))
random.Random(SEED).shuffle(idx)              # same split on every worker
n_val = int(len(idx) * VAL_FRAC)
val_idx, train_idx = idx[:n_val], idx[n_val:]
train_idx = train_idx[: len(train_idx) // hvd.size() * hvd.size()]
my_idx = train_idx[hvd.rank()::hvd.size()]   # my slice of the training images

train_loader = torch.utils.data.DataLoader(torch.utils.data.Subset(full_train, my_idx), batch_size=BS,
                                           shuffle=True, num_workers=4, drop_last=True)
val_loader = torch.utils.data.DataLoader(torch.utils.data.Subset(full_val, val_idx), batch_size=64,
                                         shuffle=False, num_workers=4)

# %%
model = torchvision.models.efficientnet_b0(weights=None, num_classes=len(full_train.classes)).to(DEVICE)
opt = torch.optim.Adam(model.parameters(), lr=BASE_LR * hvd.size())
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                               backward_passes_per_step=ACCUM)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)

steps_per_epoch = len(train_loader) // ACCUM
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: min(1.0, (s + 1) / (WARMUP * steps_per_epoch)))
crit = nn.CrossEntropyLoss()


# %%
def validate():
    model.eval()
    hit, seen = 0, 0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(DEVICE), y.to(DEVICE)
            hit += (model(x).argmax(1) == y).sum().item()
            seen += len(y)
    return hit / seen


# %%
for epoch in range(EPOCHS):
    model.train()
    t0 = time.time()
    opt.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        if i >= steps_per_epoch * ACCUM:
            break
        x, y = x.to(DEVICE), y.to(DEVICE)
        loss = crit(model(x), y) / ACCUM
        loss.backward()
        if (i + 1) % ACCUM == 0:
            opt.step()
            opt.zero_grad()
            sched.step()

    if hvd.rank() == 0:
        acc = validate()   # whole validation split, only on rank 0
        print(f"epoch {epoch} val_acc {acc:.4f} lr {sched.get_last_lr()[0]:.2e} {time.time() - t0:.0f}s")
        if epoch % 2 == 1 or epoch == EPOCHS - 1:
            os.makedirs(OUT_DIR, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict()},
                       os.path.join(OUT_DIR, f"effb0_e{epoch}.pth"))
