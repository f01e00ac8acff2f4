import itertools

import numpy as np

ALPHABET = "ACGT"
_LUT = np.full(256, -1, dtype=np.int64)
for _i, _c in enumerate(ALPHABET):
    _LUT[ord(_c)] = _i
    _LUT[ord(_c.lower())] = _i


def one_hot(seq):
    """(4, L) float32 one-hot; N and other IUPAC codes become all-zero columns."""
    idx = _LUT[np.frombuffer(seq.encode("ascii"), dtype=np.uint8)]
    out = np.zeros((4, len(seq)), dtype=np.float32)
    ok = idx >= 0
    out[idx[ok], np.nonzero(ok)[0]] = 1.0
    return out


def kmer_vocab(k):
    return {"".join(p): i for i, p in enumerate(itertools.product(ALPHABET, repeat=k))}


def kmer_tokens(seq, k, vocab):
    """Overlapping k-mers as token ids; k-mers with N map to len(vocab)."""
    unk = len(vocab)
    return np.array([vocab.get(seq[i:i + k].upper(), unk) for i in range(len(seq) - k + 1)],
                    dtype=np.int64)
