import numpy as np
import torch


def weighted_roc_auc(scores, labels, weights=None):
    """Weighted ROC AUC via the trapezoid rule on the sorted scores."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    weights = np.ones_like(scores) if weights is None else np.asarray(weights, dtype=np.float64)
    order = np.argsort(-scores)
    lab, w = labels[order], weights[order]
    tp = np.cumsum(w * lab)
    fp = np.cumsum(w * (1.0 - lab))
    if tp[-1] <= 0 or fp[-1] <= 0:
        return float("nan")
    tpr = np.concatenate([[0.0], tp / tp[-1]])
    fpr = np.concatenate([[0.0], fp / fp[-1]])
    return float(np.sum(np.diff(fpr) * 0.5 * (tpr[1:] + tpr[:-1])))


def background_rejection(scores, labels, sig_eff=0.5):
    scores, labels = np.asarray(scores), np.asarray(labels)
    cut = np.quantile(scores[labels == 1], 1.0 - sig_eff)
    bkg_eff = np.mean(scores[labels == 0] >= cut)
    return float(1.0 / max(bkg_eff, 1e-6))


@torch.no_grad()
def evaluate(model, loader, device, loss_fn):
    model.eval()
    all_s, all_y, all_w, tot_loss, n = [], [], [], 0.0, 0
    for x, y, w in loader:
        x, y, w = x.to(device), y.to(device), w.to(device)
        logits = model(x)
        tot_loss += (loss_fn(logits, y) * w).sum().item()
        n += len(y)
        all_s.append(torch.sigmoid(logits).cpu())
        all_y.append(y.cpu())
        all_w.append(w.cpu())
    s, y, w = torch.cat(all_s).numpy(), torch.cat(all_y).numpy(), torch.cat(all_w).numpy()
    return {
        "loss": tot_loss / max(n, 1),
        "auc": weighted_roc_auc(s, y, w),
        "rej50": background_rejection(s, y, 0.5),
    }
