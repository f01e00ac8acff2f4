import numpy as np


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def ensemble_probs(models, x, batch_size=512):
    return np.mean([softmax(m.predict(x, batch_size=batch_size, verbose=0)) for m in models], axis=0)


def scores(probs, y):
    nll = -np.mean(np.log(probs[np.arange(len(y)), y] + 1e-12))
    acc = float(np.mean(probs.argmax(-1) == y))
    conf = probs.max(-1)
    # 15-bin expected calibration error
    bins = np.linspace(0, 1, 16)
    ece = 0.0
    for lo, hi in zip(bins[:-1], bins[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.mean() * abs(float(np.mean(probs[m].argmax(-1) == y[m])) - float(conf[m].mean()))
    return {"nll": float(nll), "acc": acc, "ece": float(ece)}
