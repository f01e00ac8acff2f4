# SIIM-ISIC melanoma: train every fold in one job on a Horovod cluster.
# usage: horovodrun -np 8 -H node1:4,node2:4 python train_folds.py
import os

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from melanoma.folds import read_meta, patient_folds
from melanoma.dataset import MelanomaDataset
from melanoma.model import build_model
from melanoma.engine import train_epoch, valid_epoch
from utils.misc import seed_everything, roc_auc

CFG = {
    "data": "../input/siim-128",
    "out": "weights",
    "arch": "resnet18",
    "folds": [0, 1, 2, 3, 4],
    "n_splits": 5,
    "epochs": 12,
    "bs": 64,
    "lr": 3e-4,
    "seed": 2020,
    "amp": True,
    "workers": 4,
}

hvd.init()
torch.cuda.set_device(hvd.local_rank()) if torch.cuda.is_available() else None
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
use_amp = CFG["amp"] and device.type == "cuda"

# different augmentations on every worker
seed_everything(CFG["seed"] + hvd.rank())

meta = read_meta(os.path.join(CFG["data"], "train.csv"))
images = np.load(os.path.join(CFG["data"], "train_128.npy"), mmap_mode="r")
targets = np.array([int(r["target"]) for r in meta])
fold_of = patient_folds(meta, CFG["n_splits"])
os.makedirs(CFG["out"], exist_ok=True)

oof = np.zeros(len(meta), dtype=np.float32)
for fold in CFG["folds"]:
    tr_idx = np.where(fold_of != fold)[0]
    va_idx = np.where(fold_of == fold)[0]
    train_ds = MelanomaDataset(images, targets, tr_idx, train=True)
    valid_ds = MelanomaDataset(images, targets, va_idx, train=False)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_dl = DataLoader(train_ds, batch_size=CFG["bs"], sampler=train_sampler,
                          num_workers=CFG["workers"], drop_last=True, pin_memory=True)
    valid_dl = DataLoader(valid_ds, batch_size=CFG["bs"] * 2, sampler=valid_sampler,
                          num_workers=CFG["workers"])

    model = build_model(CFG["arch"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"] * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=CFG["lr"] * hvd.size(),
                                                    total_steps=CFG["epochs"] * len(train_dl))
    scaler = torch.amp.GradScaler(device.type, enabled=use_amp)

    best_auc = 0.0
    for epoch in range(CFG["epochs"]):
        train_sampler.set_epoch(epoch)
        loss = train_epoch(model, train_dl, optimizer, scaler, device, use_amp)
        for _ in range(len(train_dl)):
            scheduler.step()
        preds, gts = valid_epoch(model, valid_dl, device)
        auc = roc_auc(gts, preds)
        if hvd.rank() == 0:
            print(f"fold {fold} epoch {epoch} loss {loss:.4f} val auc {auc:.4f}", flush=True)
        if auc > best_auc:
            best_auc = auc
            torch.save(model.state_dict(), f"{CFG['out']}/{CFG['arch']}_fold{fold}_best.pth")

    state = torch.load(f"{CFG['out']}/{CFG['arch']}_fold{fold}_best.pth", map_location=device)
    model.load_state_dict(state)
    preds, _ = valid_epoch(model, valid_dl, device)
    # undo DistributedSampler's strided split (rank r got r, r+N, ...; padded at the end)
    total = len(preds)
    order = np.concatenate([np.arange(r, total, hvd.size()) for r in range(hvd.size())])
    full = np.empty(total, dtype=np.float32)
    full[order] = preds
    oof[va_idx] = full[: len(va_idx)]
    if hvd.rank() == 0:
        print(f"fold {fold} best auc {best_auc:.4f}")

if hvd.rank() == 0:
    np.save(f"{CFG['out']}/oof_{CFG['arch']}.npy", oof)
    print("CV AUC", roc_auc(targets, oof))
