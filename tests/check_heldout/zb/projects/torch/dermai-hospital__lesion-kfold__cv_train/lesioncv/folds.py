import numpy as np


def patient_folds(patient_ids, labels, n_folds, seed):
    """Assign whole patients to folds, roughly stratified by their majority label. Deterministic."""
    rng = np.random.default_rng(seed)
    patients = np.unique(patient_ids)
    maj = np.array([np.bincount(labels[patient_ids == p]).argmax() for p in patients])
    fold_of = {}
    for c in np.unique(maj):
        members = patients[maj == c]
        rng.shuffle(members)
        for i, p in enumerate(members):
            fold_of[p] = i % n_folds
    return np.array([fold_of[p] for p in patient_ids])
