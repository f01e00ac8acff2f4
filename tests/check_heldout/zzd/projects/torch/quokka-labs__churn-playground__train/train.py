#!/usr/bin/env python
# coding: utf-8
# Exported from notebooks/03_train_mlp.ipynb and cleaned up so it runs under horovodrun.
#   horovodrun -np 4 python train.py
# All settings come from settings.env (or plain env vars), see utils.CFG.

import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

import utils
from utils import CFG, log
from tracker import RunTracker
from churn.data import load_frame, make_tensors, ChurnDataset
from churn.model import ChurnMLP


# In[1]: setup
def cell_setup():
    hvd.init()
    utils.STATE["rank"] = hvd.rank()
    utils.STATE["world"] = hvd.size()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        utils.STATE["device"] = torch.device("cuda", hvd.local_rank())
    torch.manual_seed(CFG["seed"])
    log(f"world={hvd.size()} device={utils.STATE['device']}")


# In[2]: data
def cell_data():
    df = load_frame(CFG["data_path"])
    x, y = make_tensors(df)
    n_val = int(len(x) * CFG["val_frac"])
    train_ds = ChurnDataset(x[n_val:], y[n_val:])
    val_ds = ChurnDataset(x[:n_val], y[:n_val])
    sampler = torch.utils.data.distributed.DistributedSampler(
        train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=CFG["seed"])
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=CFG["batch_size"], sampler=sampler)
    # val split is tiny, every rank just scores all of it
    val_dl = torch.utils.data.DataLoader(val_ds, batch_size=512, shuffle=False)
    return train_dl, val_dl, sampler, x.shape[1]


# In[3]: model / optimizer (+ resume)
def cell_model(n_features):
    model = ChurnMLP(n_features, hidden=CFG["hidden"]).to(utils.STATE["device"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"] * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    start_epoch = 0
    if CFG["resume"] and os.path.exists(CFG["ckpt_path"]):
        start_epoch = utils.load_checkpoint(CFG["ckpt_path"], model, opt)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    return model, opt, start_epoch


# In[4]: training loop
def cell_train(model, opt, train_dl, val_dl, sampler, start_epoch, tracker):
    crit = nn.BCEWithLogitsLoss()
    dev = utils.STATE["device"]
    for epoch in range(start_epoch, CFG["epochs"]):
        model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        running = 0.0
        for xb, yb in train_dl:
            xb, yb = xb.to(dev), yb.to(dev)
            opt.zero_grad()
            loss = crit(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
            running += loss.item()

        val_loss, val_acc = utils.evaluate(model, val_dl, crit, dev)
        tracker.log(epoch=epoch, train_loss=running / max(1, len(train_dl)),
                    val_loss=val_loss, val_acc=val_acc, secs=round(time.time() - t0, 2))
        log(f"epoch {epoch:02d}  train_loss {running / max(1, len(train_dl)):.4f}  "
            f"val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
        utils.save_checkpoint(CFG["ckpt_path"], model, opt, epoch + 1)


def main():
    cell_setup()
    train_dl, val_dl, sampler, n_feat = cell_data()
    model, opt, start_epoch = cell_model(n_feat)
    tracker = RunTracker(CFG["run_dir"], enabled=(hvd.rank() == 0))
    tracker.log_params(CFG)
    cell_train(model, opt, train_dl, val_dl, sampler, start_epoch, tracker)
    tracker.close()
    log(f"done in {utils.elapsed():.1f}s")


if __name__ == "__main__":
    main()
