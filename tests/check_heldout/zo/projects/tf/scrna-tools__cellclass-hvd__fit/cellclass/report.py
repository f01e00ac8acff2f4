"""Held-out evaluation: per-class F1, macro F1 and a confusion matrix."""
import numpy as np


def confusion(y_true, y_pred, n):
    m = np.zeros((n, n), np.int64)
    np.add.at(m, (y_true, y_pred), 1)
    return m


def per_class_f1(conf):
    tp = np.diag(conf).astype(np.float64)
    prec = tp / np.maximum(conf.sum(0), 1)
    rec = tp / np.maximum(conf.sum(1), 1)
    return 2 * prec * rec / np.maximum(prec + rec, 1e-12)


def evaluate_fold(model, x, y, classes, batch_size=1024):
    prob = model.predict(x, batch_size=batch_size, verbose=0)
    conf = confusion(y, prob.argmax(1), len(classes))
    f1 = per_class_f1(conf)
    lines = [f"  {c:<28s} F1 {v:.3f}  (n={conf[i].sum()})" for i, (c, v) in enumerate(zip(classes, f1))]
    return {"macro_f1": float(f1.mean()), "acc": float(np.trace(conf) / conf.sum()), "report": "\n".join(lines)}
