import numpy as np


def mc_predict(model, x, samples=20, batch_size=1024):
    probs = 0.0
    for _ in range(samples):
        logits = model.predict(x, batch_size=batch_size, verbose=0)
        e = np.exp(logits - logits.max(-1, keepdims=True))
        probs = probs + e / e.sum(-1, keepdims=True)
    return probs / samples


def expected_calibration_error(probs, labels, n_bins=15):
    conf, pred = probs.max(-1), probs.argmax(-1)
    acc = (pred == labels).astype(np.float64)
    bins = np.minimum((conf * n_bins).astype(int), n_bins - 1)
    ece = 0.0
    for b in range(n_bins):
        m = bins == b
        if m.any():
            ece += m.mean() * abs(acc[m].mean() - conf[m].mean())
    return ece


def nll_and_brier(probs, labels):
    p_true = probs[np.arange(len(labels)), labels]
    onehot = np.eye(probs.shape[1])[labels]
    return float(-np.log(np.clip(p_true, 1e-12, None)).mean()), float(((probs - onehot) ** 2).sum(-1).mean())
