#!/usr/bin/env python
# coding: utf-8

# In[1]:


import os
import math
import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


# In[2]:


hvd.init()
torch.manual_seed(1234)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    DEV = "cuda"
else:
    DEV = "cpu"
print("hvd", hvd.rank(), hvd.size())


# In[3]:


# parameters (papermill overrides these)
WINDOW = 30
BATCH = 128
EPOCHS = 20
LR = 1e-3
HIDDEN = 64
DATA = os.environ.get("PRICES_NPY", "")


# In[4]:


if DATA and os.path.exists(DATA):
    series = np.load(DATA).astype("float32")
else:
    series = np.cumsum(np.random.RandomState(7).randn(5000)).astype("float32")
series = (series - series.mean()) / series.std()

def make_windows(s, w):
    X = np.stack([s[i:i + w] for i in range(len(s) - w)])
    y = s[w:]
    return X[..., None], y[:, None]

X, y = make_windows(series, WINDOW)
n_val = len(X) // 5
Xtr, ytr, Xva, yva = X[:-n_val], y[:-n_val], X[-n_val:], y[-n_val:]
Xtr.shape


# In[5]:


# every worker takes every size()-th window
Xtr_r, ytr_r = Xtr[hvd.rank()::hvd.size()], ytr[hvd.rank()::hvd.size()]
Xva_r, yva_r = Xva[hvd.rank()::hvd.size()], yva[hvd.rank()::hvd.size()]
len(Xtr_r), len(Xva_r)


# In[6]:


class LSTMReg(nn.Module):
    def __init__(self, hidden=HIDDEN):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True, num_layers=2)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def batches(X, y, bs, shuffle=True, seed=0):
    idx = np.arange(len(X))
    if shuffle:
        np.random.RandomState(seed).shuffle(idx)
    for i in range(0, len(idx), bs):
        j = idx[i:i + bs]
        yield torch.from_numpy(X[j]).to(DEV), torch.from_numpy(y[j]).to(DEV)


def evaluate(m):
    m.eval()
    se, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in batches(Xva_r, yva_r, 512, shuffle=False):
            se += ((m(xb) - yb) ** 2).sum().item()
            n += len(yb)
    tot = hvd.allreduce(torch.tensor([se, float(n)]), op=hvd.Sum, name="val_mse")
    return (tot[0] / tot[1]).item()


# In[7]:


model = LSTMReg().to(DEV)
optimizer = torch.optim.Adam(model.parameters(), lr=LR * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
loss_fn = nn.MSELoss()


# In[8]:


for epoch in range(EPOCHS):
    model.train()
    for xb, yb in batches(Xtr_r, ytr_r, BATCH, seed=epoch):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
    val_mse = evaluate(model)
    if hvd.rank() == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.5f}  val_mse {val_mse:.5f}")
    torch.save(model.state_dict(), "lstm_stage1.pt")


# In[9]:


val_mse


# In[10]:


# fine tune with a longer window on the last 40% of the series
# (fresh model from the stage-1 weights, smaller lr)
WINDOW = 60
X, y = make_windows(series[int(len(series) * 0.6):], WINDOW)
n_val = len(X) // 5
Xtr, ytr, Xva, yva = X[:-n_val], y[:-n_val], X[-n_val:], y[-n_val:]
Xtr_r, ytr_r = Xtr[hvd.rank()::hvd.size()], ytr[hvd.rank()::hvd.size()]
Xva_r, yva_r = Xva[hvd.rank()::hvd.size()], yva[hvd.rank()::hvd.size()]

model = LSTMReg().to(DEV)
model.load_state_dict(torch.load("lstm_stage1.pt", map_location=DEV))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4 * hvd.size())


# In[11]:


for epoch in range(5):
    model.train()
    for xb, yb in batches(Xtr_r, ytr_r, BATCH, seed=100 + epoch):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
    val_mse = evaluate(model)
    if hvd.rank() == 0:
        print(f"ft epoch {epoch}  val_mse {val_mse:.5f}")
    torch.save(model.state_dict(), "lstm_finetuned.pt")


# In[ ]:
