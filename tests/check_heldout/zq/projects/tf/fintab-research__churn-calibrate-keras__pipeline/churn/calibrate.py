import numpy as np


def _log_softmax(z):
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def fit_temperature(logits, labels, grid=np.linspace(0.5, 5.0, 91)):
    """Temperature scaling by grid search on the validation NLL (deterministic)."""
    nll = [-_log_softmax(logits / t)[np.arange(len(labels)), labels].mean() for t in grid]
    return float(grid[int(np.argmin(nll))])


def expected_calibration_error(logits, labels, n_bins=15):
    probs = np.exp(_log_softmax(logits))
    conf, pred = probs.max(1), probs.argmax(1)
    bins = np.linspace(0, 1, n_bins + 1)
    ece = 0.0
    for lo, hi in zip(bins[:-1], bins[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.mean() * abs((pred[m] == labels[m]).mean() - conf[m].mean())
    return float(ece)
