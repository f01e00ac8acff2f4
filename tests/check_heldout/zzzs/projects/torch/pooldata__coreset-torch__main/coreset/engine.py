import torch
import torch.nn.functional as F


def train_one_epoch(model, optimizer, loader, device):
    model.train()
    tot, n = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        tot += loss.item() * x.size(0)
        n += x.size(0)
    return tot / max(n, 1)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(dim=1) == y).sum().item()
        total += y.size(0)
    return correct / total


@torch.no_grad()
def embed(model, loader, device):
    model.eval()
    out = []
    for (x,) in loader:
        _, e = model(x.to(device), return_emb=True)
        out.append(e.cpu())
    return torch.cat(out)
