import torch


def auroc(scores, labels):
    order = torch.argsort(scores, descending=True)
    labels = labels[order].float()
    tps = torch.cumsum(labels, 0)
    fps = torch.cumsum(1 - labels, 0)
    n_pos, n_neg = tps[-1], fps[-1]
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    tpr = torch.cat([torch.zeros(1), tps / n_pos])
    fpr = torch.cat([torch.zeros(1), fps / n_neg])
    return float(torch.trapz(tpr, fpr))


def sensitivity_specificity(scores, labels, thr=0.5):
    pred = scores >= thr
    pos = labels == 1
    sens = (pred & pos).sum().item() / max(pos.sum().item(), 1)
    spec = (~pred & ~pos).sum().item() / max((~pos).sum().item(), 1)
    return sens, spec
