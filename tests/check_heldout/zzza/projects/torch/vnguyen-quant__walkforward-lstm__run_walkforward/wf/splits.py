"""Walk-forward (expanding window) splits by calendar date."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Period:
    name: str
    train_idx: np.ndarray
    test_idx: np.ndarray


def walk_forward(dates, first_test="2019-01-01", step_months=6, n_periods=4, min_train_days=500):
    dates = np.asarray(dates, dtype="datetime64[D]")
    start = np.datetime64(first_test, "M")
    periods = []
    for k in range(n_periods):
        lo = (start + k * step_months).astype("datetime64[D]")
        hi = (start + (k + 1) * step_months).astype("datetime64[D]")
        train_idx = np.where(dates < lo)[0]
        test_idx = np.where((dates >= lo) & (dates < hi))[0]
        if len(train_idx) < min_train_days or len(test_idx) == 0:
            continue
        periods.append(Period(str(lo), train_idx, test_idx))
    return periods
