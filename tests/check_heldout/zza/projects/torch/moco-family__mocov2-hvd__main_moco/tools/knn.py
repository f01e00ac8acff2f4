import torch
import torch.nn.functional as F


@torch.no_grad()
def knn_monitor(backbone, memory_loader, test_loader, device, k=200, t=0.1):
    """Weighted kNN top-1 accuracy of the frozen backbone (InstDisc protocol)."""
    backbone.eval()
    bank, bank_labels = [], []
    for x, y in memory_loader:
        bank.append(F.normalize(backbone(x.to(device)), dim=1))
        bank_labels.append(y.to(device))
    bank = torch.cat(bank).t().contiguous()
    bank_labels = torch.cat(bank_labels)
    n_cls = int(bank_labels.max()) + 1

    correct, total = 0, 0
    for x, y in test_loader:
        x, y = x.to(device), y.to(device)
        feat = F.normalize(backbone(x), dim=1)
        sim, idx = (feat @ bank).topk(k, dim=-1)
        labels = bank_labels[idx]
        w = (sim / t).exp()
        scores = torch.zeros(x.size(0), n_cls, device=device).scatter_add_(1, labels, w)
        correct += (scores.argmax(1) == y).sum().item()
        total += y.size(0)
    backbone.train()
    return 100.0 * correct / max(total, 1)
