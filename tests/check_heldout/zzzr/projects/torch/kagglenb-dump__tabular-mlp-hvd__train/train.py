#!/usr/bin/env python
# coding: utf-8

# # Tabular MLP - horovod version
# (nbconvert of tabular_mlp_hvd.ipynb)

# In[1]:


import os
import time
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from tabnb.options import get_parser
from tabnb.dist import init_dist, rank0
from tabnb.data import load_table, split, make_loader
from tabnb.model import mlp
from tabnb.metrics import Accuracy, LossMeter


# In[2]:


args = get_parser().parse_args()
device = init_dist()
print(f"rank {hvd.rank()} / {hvd.size()} on {device}")


# In[3]:


X, y = load_table(args.csv, args.target, synthetic=args.synthetic)
(Xtr, ytr), (Xva, yva) = split(X, y, args.val_frac)
train_loader, train_sampler = make_loader(Xtr, ytr, args.batch_size, train=True)
val_loader, _ = make_loader(Xva, yva, args.batch_size, train=False)
Xtr.shape, Xva.shape


# In[4]:


def log(msg):
    if rank0():
        print(time.strftime("%H:%M:%S"), msg, flush=True)


# In[5]:


model = mlp(Xtr.shape[1], args.hidden).to(device)
opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)


# In[6]:


def run_eval():
    model.eval()
    acc, lm = Accuracy(), LossMeter()
    with torch.no_grad():
        for xb, yb in val_loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            lm.update(F.cross_entropy(out, yb).item(), yb.size(0))
            acc.update(out, yb)
    return lm.compute(), acc.compute()


# In[7]:


# log() again, with rank in front (debugging hangs)
def log(msg):
    if rank0():
        print(f"[{hvd.rank()}] " + time.strftime("%H:%M:%S"), msg, flush=True)


# In[8]:


best = 0.0
for epoch in range(args.epochs):
    train_sampler.set_epoch(epoch)
    model.train()
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    val_loss, val_acc = run_eval()
    log(f"epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
    if rank0() and val_acc > best:
        best = val_acc
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "best.pt"))


# In[9]:


log(f"best val acc {best:.4f}")
