"""Two-stage fine-tuning of an ImageNet ResNet-50 (head first, then everything), with an EMA copy.

Run with: horovodrun -np 4 -H node1:4 python finetune.py
"""
import os

import horovod.torch as hvd
import torch
import torch.nn as nn
import torchvision

from ft import FTConfig
from ft.data import loaders
from ft.ema import ModelEMA
from ft.stages import build_optimizer


def accuracy(model, loader):
    model.eval()
    hits = torch.zeros(2)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            hits[0] += (model(x).argmax(1) == y).sum().item()
            hits[1] += y.numel()
    hits = hvd.allreduce(hits, op=hvd.Sum, name="val_hits")
    model.train()
    return (hits[0] / hits[1]).item()


def main(cfg: FTConfig):
    hvd.init()
    torch.cuda.set_device(hvd.rank())
    torch.backends.cudnn.benchmark = True

    train_loader, val_loader, sampler = loaders(cfg, hvd.size(), hvd.rank())

    model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
    model.fc = nn.Linear(model.fc.in_features, cfg.num_classes)
    model.cuda()
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    ema = ModelEMA(model, cfg.ema_decay)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

    epoch = 0
    for stage in cfg.stages:
        optimizer = build_optimizer(model, stage, cfg)
        for _ in range(stage.epochs):
            sampler.set_epoch(epoch)
            for x, y in train_loader:
                x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
                optimizer.zero_grad()
                loss_fn(model(x), y).backward()
                optimizer.step()
                ema.update(model)
            acc, ema_acc = accuracy(model, val_loader), accuracy(ema.module, val_loader)
            if hvd.rank() == 0:
                print(f"[{stage.name}] epoch {epoch}: acc {acc:.4f} ema {ema_acc:.4f}")
                os.makedirs(cfg.out_dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "ema": ema.module.state_dict(),
                            "stage": stage.name, "epoch": epoch},
                           os.path.join(cfg.out_dir, "last.pt"))
            epoch += 1


if __name__ == "__main__":
    main(FTConfig())
