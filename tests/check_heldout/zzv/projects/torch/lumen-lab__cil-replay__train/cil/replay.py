import numpy as np


class ExemplarBuffer:
    """Fixed-size memory split evenly over the classes seen so far.

    Exemplars are picked with a seeded generator from the full training split, so
    every worker holds the same buffer and the replay set is sharded like the task data.
    """

    def __init__(self, capacity, seed=0):
        self.capacity = capacity
        self.seed = seed
        self.index = {}  # class id -> indices into the training split
        self._x = None
        self._y = None

    def __len__(self):
        return sum(len(v) for v in self.index.values())

    def update(self, split, new_classes):
        x, y = split
        per_class = self.capacity // (len(self.index) + len(new_classes))
        for c in list(self.index):
            self.index[c] = self.index[c][:per_class]
        rng = np.random.default_rng(self.seed + len(self.index))
        for c in new_classes:
            idx = np.flatnonzero(y == c)
            self.index[c] = rng.permutation(idx)[:per_class]
        self._materialise(split)

    def _materialise(self, split):
        x, y = split
        keep = np.concatenate([self.index[c] for c in sorted(self.index)])
        self._x, self._y = x[keep], y[keep]

    def arrays(self):
        return self._x, self._y

    def state_dict(self):
        return {int(c): v.tolist() for c, v in self.index.items()}

    def load_state_dict(self, state, split):
        self.index = {int(c): np.asarray(v, dtype=np.int64) for c, v in state.items()}
        if self.index:
            self._materialise(split)
