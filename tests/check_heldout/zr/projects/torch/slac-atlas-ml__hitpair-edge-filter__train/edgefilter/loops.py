import torch
import torch.nn.functional as F
import horovod.torch as hvd


def train_one_epoch(model, loader, optimizer, pos_weight, device):
    model.train()
    pw = torch.tensor(pos_weight, device=device)
    running = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(x), y, pos_weight=pw)
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / max(len(loader), 1)


@torch.no_grad()
def evaluate(model, loader, threshold, device):
    """Edge efficiency and purity over the whole validation set (counts summed over ranks)."""
    model.eval()
    c = torch.zeros(4, dtype=torch.float64)   # tp, fp, fn, n
    for x, y in loader:
        pred = (torch.sigmoid(model(x.to(device))) > threshold).cpu()
        y = y.bool()
        c += torch.tensor([(pred & y).sum(), (pred & ~y).sum(), (~pred & y).sum(), len(y)], dtype=torch.float64)
    tp, fp, fn, n = hvd.allreduce(c, op=hvd.Sum, name="edge_counts").tolist()
    return {"eff": tp / max(tp + fn, 1), "pur": tp / max(tp + fp, 1), "n": int(n)}
