#!/usr/bin/env python
"""Train the pump autoencoder on all machines with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --data-dir /mnt/plant/pumps
"""
import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from pumpae import dist
from pumpae.config import parse_config
from pumpae.data import rank_loader
from pumpae.metrics import confusion_counts, prf, quantile_threshold
from pumpae.model import ConvAE, recon_error

log = logging.getLogger("pump-ae")


def run_epoch(model, loader, optimizer, device, max_steps):
    model.train()
    total, n = 0.0, 0
    for step, (x,) in enumerate(loader):
        if step >= max_steps:
            break
        x = x.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), x)
        loss.backward()
        optimizer.step()
        total += loss.item() * x.size(0)
        n += x.size(0)
    return total, n


@torch.no_grad()
def val_loss(model, loader, device):
    model.eval()
    total, n = 0.0, 0
    for (x,) in loader:
        x = x.to(device)
        total += F.mse_loss(model(x), x, reduction="sum").item() / x[0].numel()
        n += x.size(0)
    s, c = dist.sum_all([total, n], "val_loss")
    return s / max(c, 1)


def main():
    cfg = parse_config()
    device = dist.setup()
    logging.basicConfig(level=logging.INFO if dist.is_main() else logging.WARNING,
                        format=f"[%(asctime)s r{hvd.rank()}] %(message)s")
    torch.manual_seed(cfg.seed)

    train_loader = rank_loader(cfg.data_dir, "train", hvd.rank(), hvd.size(), cfg.batch_size,
                               shuffle=True, num_workers=cfg.num_workers)
    val_loader = rank_loader(cfg.data_dir, "val", hvd.rank(), hvd.size(), cfg.batch_size, shuffle=False)
    # machines have different lengths: every worker runs the shortest worker's step count
    steps = dist.min_all(len(train_loader), "steps_per_epoch")

    model = ConvAE(latent_dim=cfg.latent_dim).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.base_lr * hvd.size(),
                                  weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best, bad_epochs = float("inf"), 0
    ckpt_path = os.path.join(cfg.out_dir, "best.pt")
    for epoch in range(cfg.epochs):
        s, c = dist.sum_all(list(run_epoch(model, train_loader, optimizer, device, steps)), "train_loss")
        vl = val_loss(model, val_loader, device)
        log.info("epoch %d train %.5f val %.5f", epoch, s / c, vl)
        if vl < best:
            best, bad_epochs = vl, 0
            if dist.is_main():
                os.makedirs(cfg.out_dir, exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict()}, ckpt_path)
        else:
            bad_epochs += 1
            if bad_epochs >= cfg.patience:
                log.info("early stop at epoch %d", epoch)
                break

    # threshold from the reconstruction errors of all training windows of all machines
    errs = torch.cat([recon_error(model, x.to(device)).cpu() for (x,) in
                      rank_loader(cfg.data_dir, "train", hvd.rank(), hvd.size(), 512, shuffle=False)])
    threshold = quantile_threshold(dist.gather_all(errs, "train_errors"), cfg.threshold_quantile)

    test_loader = rank_loader(cfg.data_dir, "test", hvd.rank(), hvd.size(), 512, shuffle=False,
                              with_labels=True)
    counts = [0, 0, 0]
    for x, y in test_loader:
        e = recon_error(model, x.to(device)).cpu()
        counts = [a + b for a, b in zip(counts, confusion_counts(e, y, threshold))]
    tp, fp, fn = dist.sum_all(counts, "confusion")
    p, r, f1 = prf(tp, fp, fn)
    log.info("threshold %.5f  precision %.3f recall %.3f f1 %.3f", threshold, p, r, f1)


if __name__ == "__main__":
    main()
