"""PointNet classification on ModelNet40, data-parallel with Horovod."""
import argparse
import os
from dataclasses import dataclass, fields

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from pointnet import ModelNet40, PointNetCls
from pointnet.model import smooth_ce
from utils.device import get_device, set_seed
from utils.meters import AverageMeter


@dataclass
class Config:
    data_dir: str = "data/modelnet40_2048"
    npoints: int = 1024
    batch_size: int = 32
    epochs: int = 250
    lr: float = 1e-3
    weight_decay: float = 1e-4
    workers: int = 4
    seed: int = 1
    save_dir: str = "checkpoints"


def get_config():
    parser = argparse.ArgumentParser()
    for f in fields(Config):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Config(**vars(parser.parse_args()))


def evaluate(model, loader, device):
    model.eval()
    acc = AverageMeter("acc")
    with torch.no_grad():
        for pts, y in loader:
            pts, y = pts.to(device), y.to(device)
            pred = model(pts).argmax(1)
            acc.update((pred == y).float().mean().item(), y.size(0))
    return acc.avg


def main():
    cfg = get_config()
    hvd.init()
    set_seed(cfg.seed)
    device = get_device()

    train_set = ModelNet40(cfg.data_dir, "train", cfg.npoints, augment=True)
    test_set = ModelNet40(cfg.data_dir, "test", cfg.npoints)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=cfg.seed)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers, drop_last=True, pin_memory=True)
    test_loader = DataLoader(test_set, batch_size=cfg.batch_size, sampler=test_sampler,
                             num_workers=cfg.workers)

    model = PointNetCls(num_classes=40).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs, eta_min=1e-5)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    best_acc = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        loss_meter = AverageMeter("loss")
        for pts, y in train_loader:
            pts, y = pts.to(device), y.to(device)
            optimizer.zero_grad()
            loss = smooth_ce(model(pts), y)
            loss.backward()
            optimizer.step()
            loss_meter.update(loss.item(), y.size(0))
        scheduler.step()

        test_acc = evaluate(model, test_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} | {loss_meter} | test acc {test_acc:.4f} | lr {scheduler.get_last_lr()[0]:.2e}")
            if test_acc > best_acc:
                best_acc = test_acc
                os.makedirs(cfg.save_dir, exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(), "acc": test_acc},
                           os.path.join(cfg.save_dir, "pointnet_best.pth"))
    if hvd.rank() == 0:
        print(f"best test acc {best_acc:.4f}")


if __name__ == "__main__":
    main()
