"""
MPNN (edge network + GRU + sum readout) on QM9, one target, multi-GPU with horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --target 7 --epochs 300
"""
import os
import sys

import torch
import horovod.torch as hvd

from mpnnq.config import Config
from mpnnq.data import build_loaders
from mpnnq.model import MPNN
from mpnnq.trainer import Trainer
from mpnnq.checkpoint import save_checkpoint, latest_checkpoint

cfg = Config.from_cli()

hvd.init()
torch.manual_seed(cfg.seed)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")
else:
    device = torch.device("cpu")

train_loader, val_loader = build_loaders(cfg)

model = MPNN(cfg.hidden, cfg.n_layers).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.7, patience=5, min_lr=1e-5)

start_epoch = 1
ckpt = latest_checkpoint(cfg.out_dir) if hvd.rank() == 0 else None
if ckpt is not None:
    state = torch.load(ckpt, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    start_epoch = state["epoch"] + 1
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

trainer = Trainer(model, optimizer, scheduler, device)

for epoch in range(start_epoch, cfg.epochs + 1):
    train_loader.set_epoch(epoch)
    train_loss = trainer.train_one_epoch(train_loader)
    val_mae = trainer.validate(val_loader)
    scheduler.step(val_mae)
    if hvd.rank() == 0:
        print("epoch {:3d} | train mse {:.5f} | val MAE {:.5f} | lr {:.2e}".format(
            epoch, train_loss, val_mae, optimizer.param_groups[0]["lr"]))
        sys.stdout.flush()
        save_checkpoint({"epoch": epoch, "model": model.state_dict(),
                         "optimizer": optimizer.state_dict()}, cfg.out_dir, epoch)
