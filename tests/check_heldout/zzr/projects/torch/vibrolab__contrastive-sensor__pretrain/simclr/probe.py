import torch
from torch import nn
import torch.nn.functional as F
import horovod.torch as hvd


@torch.no_grad()
def embed(encoder, loader, device):
    encoder.eval()
    feats, labels = [], []
    for x, y in loader:
        feats.append(encoder(x.to(device)).cpu())
        labels.append(y)
    return torch.cat(feats), torch.cat(labels)


def fit_linear_probe(encoder, loader, device, n_classes=2, epochs=20, lr=0.01):
    feats, labels = embed(encoder, loader, device)
    probe = nn.Linear(feats.size(1), n_classes)
    opt = torch.optim.SGD(probe.parameters(), lr=lr * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, named_parameters=probe.named_parameters(prefix="probe"))
    hvd.broadcast_parameters(probe.state_dict(), root_rank=0)
    for _ in range(epochs):
        opt.zero_grad()
        F.cross_entropy(probe(feats), labels).backward()
        opt.step()
    return probe


def f1_binary(pred, target):
    tp = ((pred == 1) & (target == 1)).sum().item()
    fp = ((pred == 1) & (target == 0)).sum().item()
    fn = ((pred == 0) & (target == 1)).sum().item()
    p = tp / max(tp + fp, 1)
    r = tp / max(tp + fn, 1)
    return p, r, 2 * p * r / max(p + r, 1e-12)
