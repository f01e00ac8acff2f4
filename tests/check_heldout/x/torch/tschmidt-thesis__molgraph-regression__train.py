"""Fingerprint-MLP baseline for the HOMO-LUMO gap (thesis ch. 5, "baselines").

`train(cfg)` is what every worker runs; `python train.py --np 4` starts the workers itself through
horovod.run, so no horovodrun/mpirun wrapper is needed on the group server.
"""
import argparse
import json
import os

import horovod
import horovod.torch as hvd
import torch
import torch.nn.functional as F

from molreg.config import Config, load_config
from molreg.data import load_split, rank_batches
from molreg.device import setup_device
from molreg.io import save_model
from molreg.model import FingerprintMLP


def evaluate(model, x, y, device, batch_size):
    model.eval()
    abs_err = 0.0
    with torch.no_grad():
        for xb, yb in rank_batches(x, y, batch_size):
            abs_err += (model(xb.to(device)) - yb.to(device)).abs().sum().item()
    # every rank holds exactly len(x) // size molecules (load_split truncates), so the mean of the
    # per-rank MAEs is the MAE over the whole validation split
    return hvd.allreduce(torch.tensor(abs_err / len(x)), name="val_mae").item()


def train(cfg: Config):
    hvd.init()
    device = setup_device()
    torch.manual_seed(cfg.seed)

    x_tr, y_tr = load_split(cfg.data, "train", hvd.rank(), hvd.size(), seed=cfg.seed)
    x_va, y_va = load_split(cfg.data, "val", hvd.rank(), hvd.size(), seed=cfg.seed)
    per_rank_batch = cfg.global_batch_size // hvd.size()

    model = FingerprintMLP(x_tr.shape[1], cfg.hidden, cfg.dropout).to(device)
    # global batch is fixed in the config, so the lr found on one GPU stays valid
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=cfg.plateau_patience)

    best, history = float("inf"), []
    for epoch in range(cfg.epochs):
        model.train()
        for xb, yb in rank_batches(x_tr, y_tr, per_rank_batch, shuffle=True, seed=cfg.seed + epoch):
            opt.zero_grad()
            loss = F.mse_loss(model(xb.to(device)), yb.to(device))
            loss.backward()
            opt.step()
        val_mae = evaluate(model, x_va, y_va, device, per_rank_batch)
        sched.step(val_mae)
        history.append({"epoch": epoch, "val_mae": val_mae, "lr": opt.param_groups[0]["lr"]})
        if val_mae < best:
            best = val_mae
            save_model(model, os.path.join(cfg.out_dir, "best.pt"), epoch=epoch, val_mae=val_mae)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  val MAE {val_mae:.4f} eV  best {best:.4f}", flush=True)
    save_model(model, os.path.join(cfg.out_dir, "last.pt"), epoch=cfg.epochs - 1, val_mae=history[-1]["val_mae"])
    return history if hvd.rank() == 0 else None


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/fp_mlp.json")
    ap.add_argument("--np", type=int, default=4)
    args = ap.parse_args()
    cfg = load_config(args.config)
    results = horovod.run(train, args=(cfg,), np=args.np, use_gloo=True)
    hist = next(r for r in results if r is not None)
    os.makedirs(cfg.out_dir, exist_ok=True)
    with open(os.path.join(cfg.out_dir, "history.json"), "w") as f:
        json.dump(hist, f, indent=1)
