import numpy as np


def evaluate_full(model, dataset):
    """MAE / RMSE / R^2 of the predicted cloud fraction over the whole test set."""
    preds, targets = [], []
    for x, y in dataset:
        preds.append(model(x, training=False).numpy().ravel())
        targets.append(y.numpy().ravel())
    p, t = np.concatenate(preds), np.concatenate(targets)
    mae = float(np.mean(np.abs(p - t)))
    rmse = float(np.sqrt(np.mean((p - t) ** 2)))
    r2 = 1.0 - float(np.sum((p - t) ** 2) / max(np.sum((t - t.mean()) ** 2), 1e-12))
    return {"mae": mae, "rmse": rmse, "r2": r2}
