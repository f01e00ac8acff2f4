"""Keyword spotting (Speech Commands v2, 12 classes) with a tiny conformer.

Launch with horovodrun/mpirun/srun --mpi (Horovod), torchrun (torch.distributed) or plain python.
"""
import argparse
import os

import torch
import torch.nn.functional as F

from kws import TinyConformer
from kws import distributed as D
from kws.data import FeatureBank, loader_for_epoch
from kws.logger import get_logger

p = argparse.ArgumentParser()
p.add_argument("--train-npz", default=None)
p.add_argument("--val-npz", default=None)
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--base-lr", type=float, default=5e-4)
p.add_argument("--clip", type=float, default=5.0)
p.add_argument("--amp", action="store_true")
p.add_argument("--ckpt", default="checkpoints/kws_last.pt")
args = p.parse_args()

device = D.setup()
log = get_logger("kws", D.is_main_process())
torch.manual_seed(0)

train_set = FeatureBank(args.train_npz)
val_set = FeatureBank(args.val_npz, n=300)
model = TinyConformer().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=args.base_lr * D.world_size(), weight_decay=0.05)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)

start_epoch = 0
if D.is_main_process() and os.path.exists(args.ckpt):
    state = torch.load(args.ckpt, map_location="cpu")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    sched.load_state_dict(state["sched"])
    start_epoch = state["epoch"] + 1
    log.info("resumed from %s at epoch %d", args.ckpt, start_epoch)
start_epoch = D.broadcast_object(start_epoch, name="start_epoch")

if D.BACKEND == "horovod":
    hvd = D.hvd
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    sched.load_state_dict(hvd.broadcast_object(sched.state_dict(), root_rank=0, name="sched"))
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Average)
elif D.BACKEND == "torch":
    model = torch.nn.parallel.DistributedDataParallel(model)

scaler = torch.cuda.amp.GradScaler(enabled=args.amp and torch.cuda.is_available())

for epoch in range(start_epoch, args.epochs):
    model.train()
    for feats, labels in loader_for_epoch(train_set, D.rank(), D.world_size(), epoch, args.batch_size):
        feats, labels = feats.to(device), labels.to(device)
        opt.zero_grad()
        with torch.autocast(device.type, enabled=scaler.is_enabled()):
            loss = F.cross_entropy(model(feats), labels)
        scaler.scale(loss).backward()
        if D.BACKEND == "horovod":
            opt.synchronize()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with opt.skip_synchronize():
                scaler.step(opt)
        else:
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            scaler.step(opt)
        scaler.update()
    sched.step()

    model.eval()
    loss_sum = correct = count = 0.0
    with torch.no_grad():
        for feats, labels in loader_for_epoch(val_set, D.rank(), D.world_size(), 0, 100, drop_last=False):
            logits = model(feats.to(device))
            labels = labels.to(device)
            loss_sum += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += (logits.argmax(1) == labels).sum().item()
            count += labels.numel()
    loss_sum, correct, count = D.sum_across([loss_sum, correct, count], name="val")
    log.info("epoch %d val_loss %.4f val_acc %.4f", epoch, loss_sum / max(count, 1), correct / max(count, 1))

    if D.is_main_process():
        os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
        net = model.module if hasattr(model, "module") else model
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch}, args.ckpt)
