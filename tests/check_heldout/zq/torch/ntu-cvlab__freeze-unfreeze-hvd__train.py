"""Two-stage fine-tuning: (1) linear probe with a frozen backbone, (2) full fine-tuning.

The backbone is "frozen" by giving its param group lr=0 in stage 1, so that a single
DistributedOptimizer (and its gradient hooks) serves both stages.

    horovodrun -np 8 python train.py --data data/defects.npz --stage1-epochs 5 --stage2-epochs 20
"""
import argparse
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from ftune import checkpoint, dist
from ftune.data import ShardedArrays
from ftune.net import DefectNet


@dataclass
class Config:
    data: str = "data/defects.npz"
    ckpt: str = "checkpoints/ftune.pt"
    batch_size: int = 64
    base_lr: float = 3e-4
    backbone_lr_mult: float = 0.1
    stage1_epochs: int = 5
    stage2_epochs: int = 20
    weight_decay: float = 0.05
    amp: bool = False
    seed: int = 7


def parse() -> Config:
    ap = argparse.ArgumentParser()
    for f in fields(Config):
        if f.type is bool:
            ap.add_argument("--" + f.name.replace("_", "-"), action="store_true")
        else:
            ap.add_argument("--" + f.name.replace("_", "-"), type=f.type, default=f.default)
    return Config(**vars(ap.parse_args()))


def set_stage(optimizer, cfg, stage):
    lr = cfg.base_lr * hvd.size()
    for group in optimizer.param_groups:
        if group["name"] == "backbone":
            group["lr"] = 0.0 if stage == 1 else lr * cfg.backbone_lr_mult
        else:
            group["lr"] = lr


def train_epoch(model, loader, optimizer, scaler, device):
    model.train()
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=scaler.is_enabled()):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    stats = torch.zeros(3, dtype=torch.float64)
    for x, y in loader:
        logits = model(x.to(device)).float().cpu()
        stats[0] += F.cross_entropy(logits, y, reduction="sum").item()
        stats[1] += (logits.argmax(1) == y).sum().item()
        stats[2] += y.numel()
    stats = dist.sum_all(stats, "val_stats")
    return stats[0] / stats[2], stats[1] / stats[2]


def main():
    cfg = parse()
    device = dist.init_distributed()
    torch.manual_seed(cfg.seed)

    data = ShardedArrays(cfg.data, seed=cfg.seed)
    model = DefectNet(num_classes=data.num_classes).to(device)
    params = [{"params": model.backbone.parameters(), "name": "backbone"},
              {"params": model.head.parameters(), "name": "head"}]
    optimizer = torch.optim.AdamW(params, lr=cfg.base_lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and device.type == "cuda")

    start_epoch = checkpoint.restore_and_sync(cfg.ckpt, model, optimizer)

    total = cfg.stage1_epochs + cfg.stage2_epochs
    for epoch in range(start_epoch, total):
        stage = 1 if epoch < cfg.stage1_epochs else 2
        set_stage(optimizer, cfg, stage)
        train_epoch(model, data.train_loader(cfg.batch_size, epoch), optimizer, scaler, device)
        val_loss, val_acc = validate(model, data.val_loader(2 * cfg.batch_size), device)
        dist.log0(f"epoch {epoch:02d} stage {stage} val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
        checkpoint.save(cfg.ckpt, model, optimizer, epoch)


if __name__ == "__main__":
    main()
