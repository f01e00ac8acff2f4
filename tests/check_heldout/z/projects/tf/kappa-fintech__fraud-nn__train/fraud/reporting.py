"""End-of-run summary printed into the job log (and scraped by the model registry)."""
import numpy as np


def precision_recall_at(scores, y, threshold):
    pred = scores >= threshold
    tp = float(np.sum(pred & (y == 1)))
    fp = float(np.sum(pred & (y == 0)))
    fn = float(np.sum(~pred & (y == 1)))
    return tp / max(tp + fp, 1.0), tp / max(tp + fn, 1.0)


def best_threshold(scores, y, min_precision=0.9):
    """Lowest threshold reaching the precision floor (maximises recall under it)."""
    for t in np.linspace(0.05, 0.95, 19):
        p, _ = precision_recall_at(scores, y, t)
        if p >= min_precision:
            return float(t)
    return 0.95


def summarize(model, x, y, batch_size=8192):
    scores = model.predict(x, batch_size=batch_size, verbose=0).ravel()
    t = best_threshold(scores, y)
    p, r = precision_recall_at(scores, y, t)
    return (f"val records={len(y)} positives={int(y.sum())} threshold={t:.2f} "
            f"precision={p:.3f} recall={r:.3f}")
