"""Potency regression from assay fingerprints.

Reads experiment.cfg (KEY=VALUE, see assay/settings.py); any key can be overridden from the environment
with an ASSAY_ prefix, e.g. ASSAY_EPOCHS=3 horovodrun -np 8 python train.py
"""
import math
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from assay import runtime
from assay.data import load_arrays, partition, batches
from assay.model import FingerprintMLP
from assay.settings import SETTINGS
from assay.tracker import Tracker


def lr_at(epoch, s):
    if epoch < s.warmup_epochs:
        return s.lr * (epoch + 1) / s.warmup_epochs
    t = (epoch - s.warmup_epochs) / max(1, s.epochs - s.warmup_epochs)
    return s.lr * 0.5 * (1 + math.cos(math.pi * t))


def evaluate(model, x, y, s, device):
    model.eval()
    sse, count = 0.0, 0
    with torch.no_grad():
        for xb, yb in batches(x, y, 1024, shuffle=False):
            pred = model(xb.to(device)).squeeze(-1)
            sse += F.mse_loss(pred, yb.to(device), reduction="sum").item()
            count += len(yb)
    tot = hvd.allreduce(torch.tensor([sse, float(count)], dtype=torch.float64), op=hvd.Sum, name="val_sse")
    return math.sqrt(tot[0].item() / tot[1].item())


def train(s):
    device = runtime.setup()
    xtr, ytr, xva, yva = load_arrays(s.data_path)
    xtr, ytr = partition(xtr, ytr, hvd.rank(), hvd.size(), seed=s.seed)
    xva, yva = partition(xva, yva, hvd.rank(), hvd.size(), seed=s.seed, drop_remainder=False)

    per_rank_batch = s.global_batch // hvd.size()
    model = FingerprintMLP(xtr.shape[1], s.hidden, s.dropout).to(device)
    base_opt = torch.optim.AdamW(model.parameters(), lr=s.lr, weight_decay=s.weight_decay)
    opt = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters())
    use_amp = device.type == "cuda"
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    tracker = Tracker(s.out_dir, active=runtime.IS_ROOT)
    start = 0
    if runtime.IS_ROOT and s.resume and os.path.exists(tracker.ckpt_path):
        start = tracker.restore(model, opt)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    start = hvd.broadcast_object(start, root_rank=0, name="start_epoch")

    for epoch in range(start, s.epochs):
        for g in opt.param_groups:
            g["lr"] = lr_at(epoch, s)
        model.train()
        for xb, yb in batches(xtr, ytr, per_rank_batch, shuffle=True, seed=s.seed + epoch):
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = F.smooth_l1_loss(model(xb).squeeze(-1), yb)
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), s.clip)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()

        rmse = evaluate(model, xva, yva, s, device)
        tracker.log(epoch, rmse=rmse, lr=opt.param_groups[0]["lr"])
        if runtime.IS_ROOT:
            tracker.checkpoint(model, opt, epoch + 1)


if __name__ == "__main__":
    train(SETTINGS)
