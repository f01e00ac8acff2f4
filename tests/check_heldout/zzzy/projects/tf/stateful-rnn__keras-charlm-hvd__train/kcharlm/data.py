import numpy as np


def load_text(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    vocab = sorted(set(text))
    idx = {c: i for i, c in enumerate(vocab)}
    return vocab, np.array([idx[c] for c in text], dtype=np.int32)


def stateful_arrays(ids, batch_size, seq_len, rank=0, size=1):
    """Arrays for a stateful RNN fed with shuffle=False.

    The worker's contiguous part of `ids` is split in batch_size streams; sample j of batch k is
    window k of stream j, so the state of row j carries over from one batch to the next."""
    part = len(ids) // size
    ids = ids[rank * part:(rank + 1) * part]
    stream_len = (len(ids) - 1) // batch_size
    n_win = stream_len // seq_len
    x = np.zeros((n_win * batch_size, seq_len), dtype=np.int32)
    y = np.zeros_like(x)
    for j in range(batch_size):
        s = ids[j * stream_len:(j + 1) * stream_len + 1]
        for k in range(n_win):
            x[k * batch_size + j] = s[k * seq_len:(k + 1) * seq_len]
            y[k * batch_size + j] = s[k * seq_len + 1:(k + 1) * seq_len + 1]
    return x, y
