"""Liver CT segmentation -- Horovod training entry point.

    horovodrun -np 4 python train.py --cfg configs/liver.yaml.json
"""
import argparse
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
import horovod.torch as hvd

from ctseg.config import TrainConfig
from ctseg.dataset import CTSliceDataset
from ctseg.unet import UNet2D
from ctseg.utils.device import setup_device
from ctseg.utils.checkpoint import save_checkpoint, load_checkpoint
from ctseg.utils.meters import dice_score, hvd_mean


def train_epoch(model, loader, optimizer, scaler, device, epoch):
    model.train()
    for it, (img, mask) in enumerate(loader):
        img, mask = img.to(device, non_blocking=True), mask.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=scaler.is_enabled()):
            loss = F.binary_cross_entropy_with_logits(model(img), mask)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        if it % 50 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} it {it}/{len(loader)} loss {loss.item():.4f}", flush=True)


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    scores = [dice_score(model(img.to(device)), mask.to(device)) for img, mask in loader]
    return hvd_mean(torch.stack(scores).mean(), "val_dice")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cfg", default=None)
    cfg = TrainConfig.from_file(parser.parse_args().cfg)

    hvd.init()
    device = setup_device(cfg)
    torch.manual_seed(cfg.seed)

    train_set = CTSliceDataset(cfg.data_root, "train", augment=True)
    val_set = CTSliceDataset(cfg.data_root, "val", augment=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True,
                              num_workers=cfg.workers, pin_memory=True, drop_last=True)
    val_sampler = torch.utils.data.distributed.DistributedSampler(
        val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.workers)

    model = UNet2D(cfg.in_channels, cfg.num_classes).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size(),
                                  weight_decay=cfg.weight_decay)
    start_epoch = load_checkpoint(cfg.resume, model, optimizer) if cfg.resume else 0
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and device.type == "cuda")

    best = 0.0
    for epoch in range(start_epoch, cfg.epochs):
        t0 = time.time()
        train_epoch(model, train_loader, optimizer, scaler, device, epoch)
        dice = validate(model, val_loader, device)
        if dice > best:
            best = dice
            save_checkpoint(cfg.out_dir, "best.pth", model, optimizer, epoch)
        save_checkpoint(cfg.out_dir, "last.pth", model, optimizer, epoch)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val dice {dice:.4f} (best {best:.4f}) {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
