#!/usr/bin/env python3
"""Train a small ViT on CIFAR-10 with Horovod (JUWELS Booster).

Based on the JSC "Scalable deep learning" course notebook, turned into a package.
Example:  srun --ntasks-per-node=4 python run_train.py --epochs 200 --lr 1e-3
"""
import argparse
import json
import os

import torch
import horovod.torch as hvd

from vitcifar.config import RunConfig
from vitcifar.data import cifar10, loader
from vitcifar.engine import Trainer
from vitcifar.model import ViT


def parse_args():
    defaults = RunConfig()
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default=defaults.data_dir)
    p.add_argument("--out-dir", default=defaults.out_dir)
    p.add_argument("--epochs", type=int, default=defaults.epochs)
    p.add_argument("--batch-size", type=int, default=defaults.batch_size)
    p.add_argument("--lr", type=float, default=defaults.lr, help="base lr, scaled by #ranks")
    p.add_argument("--warmup-epochs", type=int, default=defaults.warmup_epochs)
    p.add_argument("--depth", type=int, default=defaults.depth)
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    rank, world = hvd.rank(), hvd.size()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))

    cfg = RunConfig(data_dir=args.data_dir, out_dir=args.out_dir, epochs=args.epochs,
                    batch_size=args.batch_size, lr=args.lr * world,
                    warmup_epochs=args.warmup_epochs, depth=args.depth)

    # only the first process on each node downloads, the others wait
    if hvd.local_rank() == 0:
        cifar10(cfg.data_dir, train=True, download=True)
        cifar10(cfg.data_dir, train=False, download=True)
    hvd.barrier()
    train_dl, train_sampler = loader(cifar10(cfg.data_dir, True), cfg.batch_size,
                                     cfg.num_workers, rank, world, train=True)
    val_dl, _ = loader(cifar10(cfg.data_dir, False), 256, cfg.num_workers, rank, world, train=False)

    model = ViT(patch=cfg.patch, dim=cfg.dim, depth=cfg.depth, heads=cfg.heads).to(device)
    trainer = Trainer(model, cfg, device, steps_per_epoch=len(train_dl))

    start_epoch = 0
    ckpt_path = os.path.join(cfg.out_dir, "last.pt")
    if args.resume and rank == 0 and os.path.exists(ckpt_path):
        ckpt = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        trainer.optimizer.load_state_dict(ckpt["optimizer"])
        trainer.scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(trainer.optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    trainer.scheduler.load_state_dict(
        hvd.broadcast_object(trainer.scheduler.state_dict(), root_rank=0, name="sched"))

    history = []
    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        loss_sum, n = trainer.train_epoch(train_dl, epoch, rank=rank)
        correct, count = trainer.evaluate(val_dl)
        stats = hvd.allreduce(torch.tensor([loss_sum, n, correct, count], dtype=torch.float64),
                              op=hvd.Sum, name="epoch_stats")
        train_loss, val_acc = (stats[0] / stats[1]).item(), (stats[2] / stats[3]).item()
        if rank == 0:
            history.append({"epoch": epoch, "train_loss": train_loss, "val_acc": val_acc})
            print(f"epoch {epoch}: train_loss {train_loss:.4f} val_acc {val_acc:.4f}", flush=True)
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": trainer.optimizer.state_dict(),
                        "scheduler": trainer.scheduler.state_dict()}, ckpt_path)
            with open(os.path.join(cfg.out_dir, "history.json"), "w") as f:
                json.dump(history, f, indent=1)


if __name__ == "__main__":
    main()
