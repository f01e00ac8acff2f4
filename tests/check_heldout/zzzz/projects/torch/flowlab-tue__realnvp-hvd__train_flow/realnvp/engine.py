import torch
import horovod.torch as hvd

from .metrics import BPDMeter
from .hvd_utils import rank0_print


def adjust_lr(optimizer, base_lr, epoch, it, iters_per_epoch, warmup_epochs):
    # goyal et al. style warmup from base_lr to base_lr * size
    if epoch < warmup_epochs:
        ep = epoch + float(it + 1) / iters_per_epoch
        factor = 1.0 / hvd.size() * (ep * (hvd.size() - 1) / warmup_epochs + 1)
    else:
        factor = 1.0
    for g in optimizer.param_groups:
        g["lr"] = base_lr * hvd.size() * factor


def train_one_epoch(model, loader, optimizer, cfg, epoch, device):
    model.train()
    meter = BPDMeter(n_dims=3 * 32 * 32)
    for it, x in enumerate(loader):
        x = x.to(device)
        adjust_lr(optimizer, cfg.lr, epoch, it, len(loader), cfg.warmup_epochs)
        nll = model.nll(x)
        loss = nll.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.synchronize()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
        with optimizer.skip_synchronize():
            optimizer.step()
        meter.update(nll.detach())
        if it % 50 == 0:
            rank0_print("epoch %d iter %d/%d bpd %.3f" % (epoch, it, len(loader), meter.bpd))
    return meter


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    meter = BPDMeter(n_dims=3 * 32 * 32)
    for x in loader:
        meter.update(model.nll(x.to(device)))
    return meter
