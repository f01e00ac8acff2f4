#!/usr/bin/env python
# coding: utf-8

# # Churn MLP - multi-GPU run (Horovod)
# Exported from churn_hvd.ipynb for the batch queue: `mpirun -np 4 python churn_hvd_notebook.py`

# In[1]:


import os
import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
DATA = os.environ.get("CHURN_DATA", "/shared/churn/features_v7.npz")
WARM_START = os.environ.get("CHURN_WARM_START", "churn_mlp_v6.pt")
BATCH = 256
EPOCHS = 12
LR = 1e-3


# In[2]:


blob = np.load(DATA)
X, y = blob["X"].astype(np.float32), blob["y"].astype(np.float32)
n_val = len(X) // 10
X_tr, y_tr, X_val, y_val = X[n_val:], y[n_val:], X[:n_val], y[:n_val]
print(X_tr.shape, X_val.shape)


# In[3]:


train_ds = torch.utils.data.TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr))
val_ds = torch.utils.data.TensorDataset(torch.from_numpy(X_val), torch.from_numpy(y_val))
train_sampler = torch.utils.data.distributed.DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = torch.utils.data.distributed.DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_dl = torch.utils.data.DataLoader(train_ds, batch_size=BATCH, sampler=train_sampler)
val_dl = torch.utils.data.DataLoader(val_ds, batch_size=1024, sampler=val_sampler)


# In[4]:


model = nn.Sequential(
    nn.Linear(X.shape[1], 256), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(256, 64), nn.ReLU(),
    nn.Linear(64, 1),
).to(DEVICE)
opt = torch.optim.Adam(model.parameters(), lr=LR * hvd.size())
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
loss_fn = nn.BCEWithLogitsLoss()


# In[5]:


# warm start from last quarter's model (only rank 0 has the file on its scratch disk)
if hvd.rank() == 0 and os.path.exists(WARM_START):
    model.load_state_dict(torch.load(WARM_START, map_location=DEVICE))
    print("warm start from", WARM_START)


# In[6]:


def evaluate():
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            pred = (model(xb.to(DEVICE)).squeeze(1) > 0).float().cpu()
            correct += (pred == yb).sum().item()
            total += len(yb)
    return correct / total


for epoch in range(EPOCHS):
    train_sampler.set_epoch(epoch)
    model.train()
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = loss_fn(model(xb.to(DEVICE)).squeeze(1), yb.to(DEVICE))
        loss.backward()
        opt.step()
    acc = evaluate()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f} val_acc {acc:.4f}")


# In[7]:


if hvd.rank() == 0:
    torch.save(model.state_dict(), "churn_mlp_v7.pt")
