"""Integer encoding of protein sequences (20 standard residues + X + padding)."""
import csv

import numpy as np

AMINO = "ACDEFGHIKLMNPQRSTVWY"
_IDX = {a: i + 1 for i, a in enumerate(AMINO)}
UNK = len(AMINO) + 1


def encode(seq, max_len):
    ids = [_IDX.get(c, UNK) for c in seq.upper()[:max_len]]
    return ids + [0] * (max_len - len(ids))


def encode_fasta_table(path, max_len, label_col="family", seq_col="sequence", classes=None):
    """CSV with a sequence column and a family label -> (int32 [N, L], int32 [N], class list)."""
    seqs, labels = [], []
    with open(path) as f:
        for row in csv.DictReader(f):
            seqs.append(row[seq_col])
            labels.append(row[label_col])
    if classes is None:
        classes = sorted(set(labels))
    cidx = {c: i for i, c in enumerate(classes)}
    keep = [i for i, l in enumerate(labels) if l in cidx]
    x = np.array([encode(seqs[i], max_len) for i in keep], dtype=np.int32)
    y = np.array([cidx[labels[i]] for i in keep], dtype=np.int32)
    return x, y, classes


def decode(ids):
    return "".join(AMINO[i - 1] if 0 < i <= len(AMINO) else ("X" if i == UNK else "") for i in ids)


def length_histogram(x, bins=(64, 128, 256, 512, 1024)):
    """Number of sequences per length bucket (lengths = non-padding positions)."""
    lengths = (np.asarray(x) > 0).sum(axis=1)
    edges = (0,) + tuple(bins)
    return {f"{lo}-{hi}": int(((lengths > lo) & (lengths <= hi)).sum()) for lo, hi in zip(edges[:-1], edges[1:])}
