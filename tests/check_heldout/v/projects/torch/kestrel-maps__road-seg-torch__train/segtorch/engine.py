import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, device, log=None):
    model.train()
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if log is not None and step % 50 == 0:
            log(f"  step {step:4d} loss {loss.item():.4f}")
    return loss.item()


@torch.no_grad()
def road_iou(model, loader, device):
    """Road-class IoU over every tile of `loader` (no cross-worker reduction)."""
    model.eval()
    inter = union = 0
    for x, y in loader:
        pred = model(x.to(device)).argmax(1).cpu()
        inter += ((pred == 1) & (y == 1)).sum().item()
        union += ((pred == 1) | (y == 1)).sum().item()
    return inter / max(union, 1)
