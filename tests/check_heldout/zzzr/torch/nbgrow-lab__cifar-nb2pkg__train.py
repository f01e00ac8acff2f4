#!/usr/bin/env python
# coding: utf-8

# exported from notebooks/01_cifar_baseline.ipynb with `jupyter nbconvert --to script`
# then most of the cells moved into nbcifar/ -- kept the cell markers so the diff vs. the notebook is readable

# In[1]:


import os
import argparse

import torch
import horovod.torch as hvd

from nbcifar import config as C
from nbcifar.dist_utils import setup_horovod, is_root, log
from nbcifar.data import make_loaders
from nbcifar.trainer import Trainer, SmallNet
from nbcifar.ckpt import save_checkpoint, try_resume


# In[2]:


parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/default.json")
parser.add_argument("--epochs", type=int, default=None)
parser.add_argument("--finetune-epochs", type=int, default=None)
parser.add_argument("--fake-data", action="store_true")
parser.add_argument("--out", default="runs/baseline")
args = parser.parse_args()

cfg = C.load_json(args.config)
if args.epochs is not None:
    cfg["epochs"] = args.epochs
if args.finetune_epochs is not None:
    cfg["finetune_epochs"] = args.finetune_epochs


# In[3]:


rank, world = setup_horovod()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
log("world size", world, "cfg", cfg)


# In[4]:


train_loader, val_loader, train_sampler = make_loaders(cfg, fake=args.fake_data)
len(train_loader)


# In[5]:


model = SmallNet()
trainer = Trainer(cfg, model, device)
ckpt_path = os.path.join(args.out, "last.pt")
start_epoch = try_resume(ckpt_path, trainer.model, trainer.optimizer)
trainer.sync_start()


# In[6]:


for epoch in range(start_epoch, cfg["epochs"]):
    train_sampler.set_epoch(epoch)
    tr_loss = trainer.train_epoch(train_loader, epoch)
    va_loss, va_acc = trainer.evaluate(val_loader)
    log(f"epoch {epoch}: train {tr_loss:.4f} val {va_loss:.4f} acc {va_acc:.3f}")
    if epoch % cfg["save_every"] == 0:
        save_checkpoint(ckpt_path, trainer.model, trainer.optimizer, epoch)


# In[7]:


# fine-tune: same optimizer, lower lr (re-ran this cell a few times with different mults)
cfg["finetune_lr_mult"] = 0.05
trainer.set_lr(cfg["lr"] * cfg["finetune_lr_mult"] * hvd.size())
for epoch in range(cfg["finetune_epochs"]):
    train_sampler.set_epoch(1000 + epoch)
    tr_loss = trainer.train_epoch(train_loader, epoch)
    va_loss, va_acc = trainer.evaluate(val_loader)
    log(f"ft {epoch}: train {tr_loss:.4f} val {va_loss:.4f} acc {va_acc:.3f}")


# In[8]:


save_checkpoint(os.path.join(args.out, "finetuned.pt"), trainer.model, trainer.optimizer, -1)
if is_root():
    print("done")
