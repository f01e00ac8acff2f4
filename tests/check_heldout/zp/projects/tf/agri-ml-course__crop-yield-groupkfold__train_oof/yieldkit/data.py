import csv

import numpy as np

FEATURES = ["ndvi_mean", "ndvi_max", "rain_mm", "tmax", "tmin", "soil_ph", "soil_oc", "elev",
            "sow_doy", "fert_kg", "irrigated"]


def read(path, target="yield_t_ha"):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    X = np.array([[float(r[f]) for f in FEATURES] for r in rows], dtype=np.float32)
    y = np.array([float(r[target]) for r in rows], dtype=np.float32) if target in rows[0] else None
    return [r["field_id"] for r in rows], [r.get("farm_id", "") for r in rows], X, y


def group_kfold(groups, n_splits=5):
    """sklearn.GroupKFold: biggest groups first, each into the currently lightest fold."""
    names, inv, counts = np.unique(groups, return_inverse=True, return_counts=True)
    fold_of_group = np.zeros(len(names), dtype=np.int64)
    load = np.zeros(n_splits)
    for g in np.argsort(-counts, kind="stable"):
        f = int(np.argmin(load))
        fold_of_group[g] = f
        load[f] += counts[g]
    return fold_of_group[inv]
