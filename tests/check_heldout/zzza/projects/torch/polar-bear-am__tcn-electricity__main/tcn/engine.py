import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, scaler, device, use_amp, clip=1.0):
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=use_amp):
            loss = F.l1_loss(model(x), y)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        n += 1
    return total / max(n, 1)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    abs_err, ape, n = 0.0, 0.0, 0
    for x, y in loader:
        pred = model(x.to(device)).float().cpu()
        abs_err += (pred - y).abs().sum().item()
        ape += ((pred - y).abs() / y.abs().clamp_min(1e-3)).sum().item()
        n += y.numel()
    return {"mae": abs_err / n, "mape": 100 * ape / n}
