import csv

import numpy as np


def rle_encode(mask):
    """Kaggle run-length encoding, column-major, 1-indexed."""
    pixels = np.concatenate([[0], mask.T.flatten(), [0]])
    runs = np.where(pixels[1:] != pixels[:-1])[0] + 1
    runs[1::2] -= runs[::2]
    return " ".join(str(r) for r in runs)


def write_submission(path, ids, masks):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "predicted"])
        for i, m in zip(ids, masks):
            w.writerow([i, rle_encode(m.astype(np.uint8))])
