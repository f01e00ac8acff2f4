"""Triple-stratified-ish folds: keep all images of a patient in one fold and
balance the number of melanoma patients per fold (after Chris Deotte's notebook)."""
import csv
from collections import defaultdict

import numpy as np


def read_meta(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def patient_folds(rows, n_splits=5):
    by_patient = defaultdict(list)
    for i, r in enumerate(rows):
        by_patient[r["patient_id"]].append(i)
    pos = [p for p, idx in by_patient.items() if any(rows[i]["target"] == "1" for i in idx)]
    neg = [p for p in by_patient if p not in set(pos)]
    fold = np.zeros(len(rows), dtype=np.int64)
    for group in (pos, neg):
        group = np.array(sorted(group))
        np.random.shuffle(group)
        for k, p in enumerate(group):
            fold[by_patient[p]] = k % n_splits
    return fold
