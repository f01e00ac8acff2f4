"""Grasp success prediction, ResNet-18 on depth crops, Horovod + AMP.

    horovodrun -np 4 python train.py --data-root /data/grasp --epochs 40 --amp
"""
import argparse
import os

import torch
import horovod.torch as hvd

from grasp.data import build_loaders
from grasp.model import grasp_net
from grasp.trainer import Trainer
from grasp import ckpt


def get_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-root", default="/data/grasp")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--pretrained", action="store_true")
    ap.add_argument("--out", default="runs/grasp")
    ap.add_argument("--resume", action="store_true")
    return ap.parse_args()


def main():
    cfg = get_config()
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")

    train_loader, val_loader, train_sampler = build_loaders(cfg, hvd.rank(), hvd.size())

    model = grasp_net(cfg.pretrained).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr * hvd.size(), momentum=0.9,
                                weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)

    start_epoch, best_acc = 0, 0.0
    last = os.path.join(cfg.out, "last.pt")
    if cfg.resume and os.path.exists(last):
        start_epoch, best_acc = ckpt.load(last, model, optimizer, scheduler)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    trainer = Trainer(model, optimizer, scheduler, device, amp=cfg.amp)
    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        loss = trainer.train_epoch(train_loader)
        acc = trainer.evaluate(val_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train_loss={loss:.4f} val_acc={acc:.4f}", flush=True)
            ckpt.save(last, model, optimizer, scheduler, epoch, max(best_acc, acc))
            if acc > best_acc:
                best_acc = acc
                ckpt.save(os.path.join(cfg.out, "best.pt"), model, optimizer, scheduler, epoch, best_acc)


if __name__ == "__main__":
    main()
