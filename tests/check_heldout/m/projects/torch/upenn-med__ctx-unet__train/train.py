"""2D U-Net for multi-organ CT segmentation, Horovod data parallel.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py --config configs/default.yaml
"""
import argparse
import os

import torch
import horovod.torch as hvd

from medseg import config as cfglib
from medseg.data import build_dataloader
from medseg.dist import all_sum, broadcast_model, init_distributed, is_main_process, save_on_master
from medseg.losses import DiceCELoss, dice_counts
from medseg.unet import UNet


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("opts", nargs="*")
    return ap.parse_args()


def evaluate(model, loader, cfg, device):
    model.eval()
    counts = torch.zeros(2, cfg.model.num_classes - 1, dtype=torch.float64, device=device)
    with torch.no_grad():
        for img, mask in loader:
            counts += dice_counts(model(img.to(device)), mask.to(device), cfg.model.num_classes)
    counts = all_sum(counts, "dice_counts")
    dice = 2 * counts[0] / counts[1].clamp(min=1)
    return dice.mean().item(), dice.tolist()


def main():
    args = get_args()
    use_cuda = torch.cuda.is_available() and not args.cpu
    rank, world = init_distributed(use_cuda)
    cfg = cfglib.load(args.config, args.opts)
    device = torch.device("cuda" if use_cuda else "cpu")

    train_loader = build_dataloader(cfg, "train", train=True)
    val_loader = build_dataloader(cfg, "val", train=False)

    model = UNet(cfg.model.in_channels, cfg.model.num_classes, cfg.model.base_width).to(device)
    criterion = DiceCELoss(cfg.model.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.train.lr * world, momentum=cfg.train.momentum,
                                weight_decay=cfg.train.weight_decay, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    max_iters = cfg.train.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda it: (1 - it / max_iters) ** cfg.train.poly_power)
    broadcast_model(model, optimizer)

    for epoch in range(cfg.train.epochs):
        model.train()
        train_loader.sampler.set_epoch(epoch)
        for it, (img, mask) in enumerate(train_loader):
            img, mask = img.to(device, non_blocking=True), mask.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = criterion(model(img), mask)
            loss.backward()
            optimizer.step()
            scheduler.step()
            if is_main_process() and it % 20 == 0:
                print(f"ep {epoch} it {it} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")

        mean_dice, per_class = evaluate(model, val_loader, cfg, device)
        if is_main_process():
            print(f"epoch {epoch}: mean Dice {mean_dice:.4f} per class {[round(d, 4) for d in per_class]}")
        if (epoch + 1) % cfg.train.save_every == 0:
            save_on_master({"model": model.state_dict(), "epoch": epoch, "dice": mean_dice},
                           os.path.join(cfg.output_dir, f"epoch_{epoch + 1}.pth"))


if __name__ == "__main__":
    main()
