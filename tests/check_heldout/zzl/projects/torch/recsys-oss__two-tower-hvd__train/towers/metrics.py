import torch


@torch.no_grad()
def recall_at_k(model, loader, k, device):
    """Recall@k of the positive item among the other items of the batch."""
    model.eval()
    hits, n = 0, 0
    for users, items in loader:
        u, v = model(users.to(device), items.to(device))
        scores = u @ v.t()
        topk = scores.topk(min(k, scores.shape[1]), dim=1).indices
        target = torch.arange(len(u), device=device)[:, None]
        hits += (topk == target).any(1).sum().item()
        n += len(u)
    model.train()
    return hits / max(n, 1)
