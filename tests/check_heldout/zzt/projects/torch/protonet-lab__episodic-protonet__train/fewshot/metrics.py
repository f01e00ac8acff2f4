import numpy as np


def mean_ci95(values):
    """Mean accuracy and the half-width of its 95% confidence interval over episodes."""
    values = np.asarray(values, dtype=np.float64)
    return values.mean(), 1.96 * values.std() / np.sqrt(len(values))
