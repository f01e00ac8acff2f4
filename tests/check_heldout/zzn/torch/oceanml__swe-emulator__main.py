"""Shallow-water emulator: one-step training, autoregressive rollout evaluation.

    horovodrun -np 8 -H node1:4,node2:4 python main.py --config configs/default.yaml optim.epochs=200
"""
import argparse
import math
import os

import torch
import horovod.torch as hvd

from swe.data import field_stats, load_valid, make_train_loader
from swe.model import SWENet, rollout_rmse
from utils import load_checkpoint, load_config, save_checkpoint
from utils.dist import log0, setup_device, sync_model


def cosine_with_warmup(epoch, warmup, total):
    if epoch < warmup:
        return (epoch + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (epoch - warmup) / max(1, total - warmup)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("overrides", nargs="*", help="key.sub=value")
    cli = ap.parse_args()
    cfg = load_config(cli.config, cli.overrides)

    hvd.init()
    device = setup_device()
    torch.manual_seed(0)

    mean, std = field_stats(cfg["data"]["path"])
    train_loader = make_train_loader(cfg["data"])
    valid = load_valid(cfg["data"])
    hist = cfg["data"]["history"]
    m, s = mean.view(1, -1, 1, 1).to(device), std.view(1, -1, 1, 1).to(device)

    model = SWENet(hist, cfg["model"]["hidden"], cfg["model"]["blocks"]).to(device)
    base_lr = cfg["optim"]["lr"] * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=base_lr, weight_decay=cfg["optim"]["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda e: cosine_with_warmup(e, cfg["optim"]["warmup_epochs"], cfg["optim"]["epochs"]))

    ckpt_path = os.path.join(cfg["output"]["dir"], "last.pt")
    start_epoch = 0
    if os.path.exists(ckpt_path):
        start_epoch = load_checkpoint(ckpt_path, model, optimizer)
        for _ in range(start_epoch):
            sched.step()

    sync_model(model, optimizer)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, cfg["optim"]["epochs"]):
        model.train()
        running = torch.zeros(2, device=device)
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            x = (x.view(x.shape[0], hist, -1, *x.shape[2:]) - m.unsqueeze(1)) / s.unsqueeze(1)
            x = x.flatten(1, 2)
            loss = torch.nn.functional.mse_loss(model(x), (y - m) / s)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += torch.stack([loss.detach() * x.shape[0], torch.tensor(float(x.shape[0]), device=device)])
        sched.step()
        running = hvd.allreduce(running, op=hvd.Sum, name="train_loss")
        log0(f"epoch {epoch} train mse {(running[0] / running[1]).item():.4e} lr {sched.get_last_lr()[0]:.2e}")

        if (epoch + 1) % cfg["eval"]["every"] == 0:
            # every worker rolls out the full validation set; the result is identical everywhere
            rmse = rollout_rmse(model, valid, hist, cfg["eval"]["rollout_steps"], mean, std, device)
            log0("rollout RMSE h/u/v @1,5,10,20:",
                 [[round(v, 4) for v in rmse[k - 1].tolist()] for k in (1, 5, 10, 20) if k <= len(rmse)])
            if hvd.rank() == 0:
                save_checkpoint(ckpt_path, model, optimizer, epoch, config=cfg)


if __name__ == "__main__":
    main()
