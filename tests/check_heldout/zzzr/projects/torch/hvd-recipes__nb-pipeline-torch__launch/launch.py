#!/usr/bin/env python
# coding: utf-8
# Stage-2 training, launched from the pipeline (pipeline/steps.py imports train_fn) or from the CLI.
# Was notebooks/stage2_finetune.ipynb; cells kept roughly in order.

# In[1]:


import argparse
import copy

import torch
import horovod
import horovod.torch as hvd

from nbpipe.config import CONFIG, override
from nbpipe.data import synthetic, shard_loader
from nbpipe.models import build_model
from nbpipe.trainer import Trainer


# In[2]:


CONFIG["epochs"] = 6
CONFIG["lr"] = 0.02   # lower than stage 1, we start from the stage-1 weights


# In[3]:


def train_fn(cfg):
    hvd.init()
    torch.manual_seed(0)
    torch.set_num_threads(1)

    ds = synthetic(cfg["n_samples"], cfg["n_features"])
    val = synthetic(cfg["n_samples"] // 4, cfg["n_features"], seed=1)
    train_loader = shard_loader(ds, hvd.rank(), hvd.size(), cfg["batch_size"], shuffle=True)
    val_loader = shard_loader(val, hvd.rank(), hvd.size(), 256, shuffle=False)

    model = build_model(cfg["n_features"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    trainer = Trainer(model, opt)
    trainer.maybe_load_pretrained(cfg["init_from"])

    trainer.fit(train_loader, cfg["epochs"])
    acc = trainer.accuracy(val_loader)
    trainer.save(cfg["out"])
    return acc


# In[4]:


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=CONFIG["np"])
    ap.add_argument("--set", nargs="*", help="key=value overrides of CONFIG")
    a = ap.parse_args()
    cfg = override(copy.deepcopy(CONFIG), a.set)
    results = horovod.run(train_fn, args=(cfg,), np=a.np)
    print("val acc per rank:", results)


if __name__ == "__main__":
    main()
