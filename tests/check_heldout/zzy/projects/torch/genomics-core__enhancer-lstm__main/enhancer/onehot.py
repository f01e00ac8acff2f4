import numpy as np

_CODE = {"A": 0, "C": 1, "G": 2, "T": 3}


def onehot_batch(seqs, length):
    """N x length x 4, centre-cropped / right-padded with zeros."""
    out = np.zeros((len(seqs), length, 4), dtype=np.float32)
    for i, s in enumerate(seqs):
        s = s.upper()
        if len(s) > length:
            start = (len(s) - length) // 2
            s = s[start:start + length]
        for j, c in enumerate(s):
            k = _CODE.get(c)
            if k is not None:
                out[i, j, k] = 1.0
    return out


def reverse_complement(x):
    """x: (..., L, 4) one-hot in ACGT order."""
    return x[..., ::-1, ::-1].copy()
