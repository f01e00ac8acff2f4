#!/usr/bin/env python
# Multi-task (classification + regression) with learned task weights.
import argparse
import json

import horovod.torch as hvd
import torch

from mtl.data import evaluate, make_loader
from mtl import losses
from mtl.net import MultiTaskNet
from mtl.optim import param_groups

parser = argparse.ArgumentParser()
parser.add_argument("--train", default="data/train.pt")
parser.add_argument("--val", default="data/val.pt")
parser.add_argument("--batch", type=int, default=256)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--ckpt", default="mtl_uncert.pt")
parser.add_argument("--weighting", choices=["uncertainty", "fixed"], default="uncertainty")
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

train_loader, train_sampler = make_loader(args.train, args.batch, hvd.size(), hvd.rank())
val_loader, _ = make_loader(args.val, args.batch, hvd.size(), hvd.rank(), train=False)

model = MultiTaskNet().to(device)
criterion = losses.build(args.weighting).to(device)

optimizer = torch.optim.AdamW(param_groups(model, criterion, args.lr * hvd.size()))
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_parameters(criterion.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

for epoch in range(args.epochs):
    train_sampler.set_epoch(epoch)
    for x, y_cls, y_reg in train_loader:
        x, y_cls, y_reg = x.to(device), y_cls.to(device), y_reg.to(device)
        optimizer.zero_grad()
        logits, reg = model(x)
        loss, parts = criterion(logits, reg, y_cls, y_reg)
        loss.backward()
        optimizer.step()

    metrics = evaluate(model, val_loader, device)
    if hvd.rank() == 0:
        if args.weighting == "uncertainty":
            metrics["sigma"] = criterion.log_vars.exp().sqrt().tolist()
        print(json.dumps({"epoch": epoch, **metrics}))
        torch.save({"model": model.state_dict(), "criterion": criterion.state_dict()}, args.ckpt)
