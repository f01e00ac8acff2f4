import numpy as np
import torch


def spearman(a, b):
    ra = np.argsort(np.argsort(a)).astype(np.float64)
    rb = np.argsort(np.argsort(b)).astype(np.float64)
    ra -= ra.mean()
    rb -= rb.mean()
    denom = np.sqrt((ra ** 2).sum() * (rb ** 2).sum())
    return float((ra * rb).sum() / denom) if denom > 0 else 0.0


@torch.no_grad()
def evaluate(model, loader, device, y_mean=0.0, y_std=1.0):
    """RMSE / MAE / Spearman on the molecules this loader yields."""
    model.eval()
    preds, targets = [], []
    for x, y in loader:
        preds.append(model(x.to(device)).squeeze(-1).cpu())
        targets.append(y)
    p = torch.cat(preds).numpy() * y_std + y_mean
    t = torch.cat(targets).numpy() * y_std + y_mean
    return {
        "rmse": float(np.sqrt(np.mean((p - t) ** 2))),
        "mae": float(np.mean(np.abs(p - t))),
        "spearman": spearman(p, t),
    }
