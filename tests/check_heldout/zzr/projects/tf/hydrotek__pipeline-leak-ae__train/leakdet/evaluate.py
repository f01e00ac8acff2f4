import numpy as np


def window_mse(model, x):
    return np.mean((model.predict(x, batch_size=256, verbose=0) - x) ** 2, axis=(1, 2))


def threshold_from_train(errors, k=3.0):
    return float(errors.mean() + k * errors.std())


def scores(errors, labels, thr):
    pred = errors > thr
    tp = int(np.sum(pred & (labels == 1)))
    fp = int(np.sum(pred & (labels == 0)))
    fn = int(np.sum(~pred & (labels == 1)))
    prec = tp / max(tp + fp, 1)
    rec = tp / max(tp + fn, 1)
    return {"precision": prec, "recall": rec, "f1": 2 * prec * rec / max(prec + rec, 1e-12)}
