"""Offline SpecAugment-style masking applied once to the training features."""
import numpy as np


def time_mask(x, rng, max_width=20, n_masks=2):
    t = x.shape[0]
    for _ in range(n_masks):
        w = rng.integers(0, max_width + 1)
        if w == 0 or w >= t:
            continue
        s = rng.integers(0, t - w)
        x[s:s + w, :] = 0.0
    return x


def freq_mask(x, rng, max_width=8, n_masks=2):
    f = x.shape[1]
    for _ in range(n_masks):
        w = rng.integers(0, max_width + 1)
        if w == 0 or w >= f:
            continue
        s = rng.integers(0, f - w)
        x[:, s:s + w] = 0.0
    return x


def spec_augment(batch, seed=0, copies=1):
    """Returns `copies` masked versions of every utterance stacked after the originals."""
    rng = np.random.default_rng(seed)
    out = [batch]
    for _ in range(copies):
        aug = batch.copy()
        for i in range(len(aug)):
            aug[i] = freq_mask(time_mask(aug[i], rng), rng)
        out.append(aug)
    return np.concatenate(out, axis=0)
