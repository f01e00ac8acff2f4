import torch


@torch.no_grad()
def accuracy(model, loader, device):
    model.eval()
    hit = seen = 0
    for x, y in loader:
        pred = model(x.to(device, non_blocking=True)).argmax(dim=1)
        hit += (pred.cpu() == y).sum().item()
        seen += y.numel()
    return hit / max(seen, 1)
