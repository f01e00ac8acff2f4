import numpy as np
import torch
import horovod.torch as hvd


def train_epoch(model, loader, optimizer, scaler, device, use_amp):
    model.train()
    crit = torch.nn.BCEWithLogitsLoss()
    running = 0.0
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device, non_blocking=True), y.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=use_amp):
            loss = crit(model(x).squeeze(1), y)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        running += loss.item()
    return running / max(len(loader), 1)


@torch.no_grad()
def valid_epoch(model, loader, device, tta=2):
    model.eval()
    preds, gts = [], []
    for x, y in loader:
        x = x.to(device)
        p = torch.sigmoid(model(x)).squeeze(1)
        if tta > 1:
            p = (p + torch.sigmoid(model(x.flip(3))).squeeze(1)) / 2
        preds.append(p.cpu())
        gts.append(y)
    preds = hvd.allgather(torch.cat(preds), name="val_preds").numpy()
    gts = hvd.allgather(torch.cat(gts), name="val_gts").numpy()
    return preds, gts
