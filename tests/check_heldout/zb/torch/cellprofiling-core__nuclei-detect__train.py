"""CenterNet-style nuclei detector for the high-content screening microscopes (DAPI channel).

    horovodrun -np 4 python train.py --data /mnt/hcs/nuclei_v7 --epochs 80
"""
import argparse
import os

import torch
import horovod.torch as hvd

from detkit.data import build_loaders
from detkit.logging_utils import get_logger
from detkit.model import CenterNetLite, focal_heatmap_loss
from detkit.optim import build_optimizer, warmup_cosine


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/mnt/hcs/nuclei_v7")
    p.add_argument("--out", default="checkpoints/nuclei")
    p.add_argument("--epochs", type=int, default=80)
    p.add_argument("--batch-size", type=int, default=12)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--accum", type=int, default=1)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--resume", default="")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    log = get_logger(args.out, hvd.rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    # different augmentation stream on every worker
    torch.manual_seed(args.seed + hvd.rank())

    train_loader, val_loader, train_sampler = build_loaders(args.data, args.batch_size, hvd.rank(), hvd.size())
    model = CenterNetLite().to(device)
    optimizer = build_optimizer(model, args)
    scheduler = warmup_cosine(optimizer, args.warmup_epochs * len(train_loader), args.epochs * len(train_loader))

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
        # make sure every worker continues from the same state
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for step, (img, heat) in enumerate(train_loader):
            img, heat = img.to(device), heat.to(device)
            loss = focal_heatmap_loss(model(img), heat) / args.accum
            loss.backward()
            if (step + 1) % args.accum == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()

        model.eval()
        total = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for img, heat in val_loader:
                img, heat = img.to(device), heat.to(device)
                total[0] += focal_heatmap_loss(model(img), heat).item() * img.shape[0]
                total[1] += img.shape[0]
        total = hvd.allreduce(total, op=hvd.Sum, name="val_loss_sum")
        val_loss = (total[0] / total[1]).item()

        if hvd.rank() == 0:
            log.info("epoch %d lr %.5f val_focal %.4f", epoch, scheduler.get_last_lr()[0], val_loss)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict()}, os.path.join(args.out, f"epoch_{epoch:03d}.pt"))


if __name__ == "__main__":
    main()
