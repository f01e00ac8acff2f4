import numpy as np


def mean_confidence(accs, z=1.96):
    accs = np.asarray(accs, dtype=np.float64)
    return float(accs.mean()), float(z * accs.std(ddof=1) / np.sqrt(accs.size))
