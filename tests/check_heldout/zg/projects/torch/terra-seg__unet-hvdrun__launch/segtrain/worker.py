import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .data import make_loaders
from .metrics import confusion, global_miou
from .model import SmallUNet


def train_worker(cfg):
    """Runs on every Horovod process started by horovod.run(); returns the last mIoU."""
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    train_loader, val_loader, train_sampler = make_loaders(cfg)
    model = SmallUNet(cfg.in_channels, cfg.num_classes).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=1e-4)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)

    miou = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for img, mask in train_loader:
            img, mask = img.to(device), mask.to(device)
            opt.zero_grad()
            with torch.autocast(device.type, enabled=cfg.amp):
                loss = F.cross_entropy(model(img), mask)
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()

        model.eval()
        conf = torch.zeros(cfg.num_classes, cfg.num_classes, dtype=torch.long, device=device)
        with torch.no_grad():
            for img, mask in val_loader:
                pred = model(img.to(device)).argmax(1)
                conf += confusion(pred, mask.to(device), cfg.num_classes)
        miou, per_class = global_miou(conf.cpu())
        if hvd.rank() == 0:
            print(f"[epoch {epoch}] loss={loss.item():.4f} mIoU={miou:.4f}", flush=True)
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(cfg.out_dir, "unet_last.pt"))
    return miou
