import json

import numpy as np


def load_comments(path):
    texts, targets = [], []
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            texts.append(rec["comment_text"])
            targets.append(float(rec["toxicity"]))
    return texts, np.asarray(targets, dtype=np.float32)


def make_folds(targets, n_folds, seed):
    """Bin the continuous target and deal each bin round-robin into folds."""
    bins = np.digitize(targets, [0.1, 0.3, 0.5, 0.7])
    rng = np.random.RandomState(seed)
    fold = np.empty(len(targets), dtype=np.int64)
    for b in np.unique(bins):
        idx = rng.permutation(np.where(bins == b)[0])
        fold[idx] = np.arange(len(idx)) % n_folds
    return fold
