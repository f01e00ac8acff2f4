import torch
import torch.nn.functional as F


def random_flip_crop(x, pad=4):
    if torch.rand(()) < 0.5:
        x = x.flip(-1)
    padded = F.pad(x, (pad, pad, pad, pad), mode="reflect")
    i, j = torch.randint(0, 2 * pad + 1, (2,)).tolist()
    return padded[..., i:i + x.size(-2), j:j + x.size(-1)]


def train_epoch(model, loader, optimizer, device, clip_norm=None):
    model.train()
    seen, loss_sum = 0, 0.0
    for x, y in loader:
        x, y = random_flip_crop(x.to(device)), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if clip_norm:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimizer.step()
        seen += x.size(0)
        loss_sum += loss.item() * x.size(0)
    return loss_sum, seen


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        total += y.numel()
    return correct, total, loss_sum
