import numpy as np
import torch

from . import dist_utils


@torch.no_grad()
def window_errors(model, loader, device):
    model.eval()
    errs, labels = [], []
    for x, y in loader:
        x = x.to(device)
        errs.append(((model(x) - x) ** 2).mean(dim=(1, 2)).cpu())
        labels.append(y)
    return torch.cat(errs), torch.cat(labels)


def global_threshold(train_errs, k=4.0):
    n, s, ss = dist_utils.reduce_sum([len(train_errs), train_errs.sum().item(),
                                      (train_errs ** 2).sum().item()], "thr_stats").tolist()
    mean = s / n
    return mean + k * np.sqrt(max(ss / n - mean * mean, 0.0))


def precision_recall_f1(errs, labels, threshold):
    pred = errs > threshold
    pos = labels.bool()
    tp, fp, fn = dist_utils.reduce_sum([(pred & pos).sum().item(), (pred & ~pos).sum().item(),
                                        (~pred & pos).sum().item()], "prf").tolist()
    p = tp / max(tp + fp, 1.0)
    r = tp / max(tp + fn, 1.0)
    return p, r, 2 * p * r / max(p + r, 1e-12)
