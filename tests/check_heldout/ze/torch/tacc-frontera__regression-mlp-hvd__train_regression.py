#!/usr/bin/env python
# coding: utf-8
# Exported from regression_hvd.ipynb (Frontera rtx queue). Run with: ibrun python train_regression.py

# In[1]:


import os
import math
import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

hvd.init()
torch.manual_seed(1234)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
ROOT = hvd.rank() == 0


# In[2]:


# job parameters come from the batch script (export GLOBAL_BATCH=... before ibrun)
GLOBAL_BATCH = int(os.environ.get("GLOBAL_BATCH", "1024"))
EPOCHS = int(os.environ.get("EPOCHS", "40"))
LR = float(os.environ.get("LR", "1e-3"))
DATA = os.environ.get("DATA", os.path.join(os.environ.get("SCRATCH", "."), "housing", "features.npz"))
LOCAL_BATCH = GLOBAL_BATCH // hvd.size()   # global batch is fixed, so LR stays as tuned on 1 GPU
if ROOT:
    print("ranks", hvd.size(), "local batch", LOCAL_BATCH, "lr", LR)


# In[3]:


arrays = np.load(DATA)
X = torch.tensor(arrays["x"], dtype=torch.float32)
Y = torch.tensor(arrays["y"], dtype=torch.float32).view(-1, 1)
n_val = len(X) // 10
X_val, Y_val = X[:n_val], Y[:n_val]
X_tr, Y_tr = X[n_val:], Y[n_val:]
# every rank gets the same number of rows (the remainder is dropped)
per_rank = len(X_tr) // hvd.size()
lo = hvd.rank() * per_rank
X_tr, Y_tr = X_tr[lo:lo + per_rank], Y_tr[lo:lo + per_rank]
steps_per_epoch = per_rank // LOCAL_BATCH


# In[4]:


model = nn.Sequential(nn.Linear(X.shape[1], 256), nn.ReLU(),
                      nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 1)).to(DEVICE)
opt = torch.optim.Adam(model.parameters(), lr=LR)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
loss_fn = nn.MSELoss()


# In[5]:


history = []
for epoch in range(EPOCHS):
    model.train()
    g = torch.Generator().manual_seed(epoch * 1000 + hvd.rank())
    perm = torch.randperm(per_rank, generator=g)
    running = 0.0
    for s in range(steps_per_epoch):
        idx = perm[s * LOCAL_BATCH:(s + 1) * LOCAL_BATCH]
        xb, yb = X_tr[idx].to(DEVICE), Y_tr[idx].to(DEVICE)
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        running += loss.item()
    # same number of steps on every rank, so the mean of the rank means is the global mean
    train_mse = hvd.allreduce(torch.tensor(running / steps_per_epoch), name="train_mse").item()

    if ROOT:
        # rank 0 scores the whole validation split by itself
        model.eval()
        with torch.no_grad():
            val_mse = loss_fn(model(X_val.to(DEVICE)), Y_val.to(DEVICE)).item()
        history.append((epoch, train_mse, val_mse))
        print(f"epoch {epoch:3d}  train rmse {math.sqrt(train_mse):.4f}  val rmse {math.sqrt(val_mse):.4f}")


# In[6]:


if ROOT:
    torch.save(model.state_dict(), f"mlp_regression_{hvd.size()}ranks.pt")
    np.savetxt(f"history_{hvd.size()}ranks.csv", np.array(history), delimiter=",",
               header="epoch,train_mse,val_mse")
