import numpy as np


class FoldSplitter:
    """Random k-fold over recordings (the metadata has no site column to group on)."""

    def __init__(self, n_items, n_folds=5):
        self.n_folds = n_folds
        order = np.random.permutation(n_items)
        self.fold_of = np.empty(n_items, dtype=np.int32)
        self.fold_of[order] = np.arange(n_items) % n_folds

    def split(self, fold):
        return np.flatnonzero(self.fold_of != fold), np.flatnonzero(self.fold_of == fold)
