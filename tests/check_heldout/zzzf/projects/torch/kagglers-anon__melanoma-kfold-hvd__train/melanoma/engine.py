import torch
import torch.nn.functional as F
import horovod.torch as hvd


def train_one_epoch(model, loader, optimizer, scaler, device, amp):
    model.train()
    for x, y, _ in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=amp):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()


@torch.no_grad()
def validate(model, loader, device):
    """Returns the global mean val loss and this rank's (index, prob) pairs."""
    model.eval()
    loss_sum, n, idxs, probs = 0.0, 0, [], []
    for x, y, j in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
        n += y.numel()
        idxs.append(j)
        probs.append(logits.softmax(1)[:, 1].cpu())
    totals = hvd.allreduce(torch.tensor([loss_sum, float(n)]), op=hvd.Sum, name="val_loss")
    return (totals[0] / totals[1]).item(), torch.cat(idxs), torch.cat(probs)
