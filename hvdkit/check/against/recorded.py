"""The Horovod run as record.py left it, read back (by the replaying run and by explain.py). Numpy only."""
import functools
import os
from typing import NamedTuple

from hvdkit.check.against import store
from hvdkit.check.run.observer import RankRecord


class Union(NamedTuple):
    batch: object   # the ranks' batches concatenated in rank order (a numpy structure)
    sizes: list     # each rank's part


class HorovodRun:
    def __init__(self, out, ranks):
        self.out, self.ranks = out, ranks
        self.records = {}   # rank -> record.json
        self.runs = {}      # rank -> RankRecord (the --run observer's: steps, crash)
        for r in range(ranks):
            path = os.path.join(out, f"rank-{r}", "record.json")
            if os.path.exists(path):
                self.records[r] = store.read_json(path)
            path = os.path.join(out, f"rank-{r}.json")
            if os.path.exists(path):
                self.runs[r] = RankRecord.load(path)

    @property
    def root(self):
        return self.records.get(0, {})

    def steps(self):
        """Optimizer steps every rank completed."""
        return min((rec.steps for rec in self.runs.values()), default=0) if len(self.runs) == self.ranks else 0

    # --- the ranks side by side ----------------------------------------------------------------------
    def equal(self, table, k):
        """Did every rank have the same digests in `table` ("before", "after", "opt_before") at step k?
        None when some rank has none (a model built by its first step has no weights before it)."""
        vals = [rec[table].get(str(k)) for rec in self.records.values()]
        return None if None in vals or len(vals) < self.ranks else all(v == vals[0] for v in vals)

    def differing(self, table, k):
        """Names of the tensors whose digests differ between ranks at step k."""
        recs = list(self.records.values())
        names = self.root.get("names") or []
        rows = [rec[table].get(str(k)) or [] for rec in recs]
        return [names[i] if i < len(names) else f"tensor {i}" for i in range(min(map(len, rows), default=0))
                if len({row[i] for row in rows}) > 1]

    def alignment(self, steps):
        """The first step before which every rank held the same weights and optimizer state (None: none)."""
        for k in range(1, steps + 1):
            if self.equal("before", k) and self.equal("opt_before", k):
                return k
        return None

    # --- rank 0's tensors ------------------------------------------------------------------------------
    def weights_before(self, k):
        """Rank 0's tensors before step k ([] when it had none yet)."""
        if self.root.get("before", {}).get(str(k)) is None:
            return []
        path = os.path.join(self.out, "rank-0", f"weights-before-{k}.npz")
        return store.load_arrays(path if os.path.exists(path) else
                                 os.path.join(self.out, "rank-0", f"weights-after-{k - 1}.npz"))

    def weights_after(self, k):
        return store.load_arrays(os.path.join(self.out, "rank-0", f"weights-after-{k}.npz"))

    def opt_state(self, k):
        path = os.path.join(self.out, "rank-0", f"opt-before-{k}.pkl")
        return store.load_pickle(path) if os.path.exists(path) else None

    def lr(self, k):
        return self.root.get("lr", {}).get(str(k))

    # --- the batches ---------------------------------------------------------------------------------
    def yields(self, rank, k):
        return self.records.get(rank, {}).get("yields", {}).get(str(k), [])

    def training(self, rank, k):
        """Indices of the yields in window k that fed step k: those of the iterator that yielded last."""
        ys = self.yields(rank, k)
        if not ys:
            return []
        last = ys[-1]["iter"]
        return [j for j, y in enumerate(ys) if y["iter"] == last]

    @property
    def train_sig(self):
        for k in sorted(int(w) for w in self.root.get("yields", {})):
            t = self.training(0, k)
            if t:
                return self.yields(0, k)[t[-1]]["sig"]
        return None

    @functools.lru_cache(maxsize=None)
    def _batches(self, rank, k):
        path = os.path.join(self.out, f"rank-{rank}", f"batches-{k}.pkl")
        return store.load_pickle(path) if os.path.exists(path) else []

    def union(self, k, j, reverse=False):
        """The union of the ranks' j-th batches of window k (those shaped like the training batches); a rank
        with fewer gives its last. None if some rank has none. `reverse`: the same samples in another order
        (the ranks' parts in reverse, each part's rows reversed): the same step up to the order of its sums."""
        sig = self.train_sig
        parts = []
        for r in range(self.ranks):
            matching = [i for i, y in enumerate(self.yields(r, k)) if y["sig"] == sig]
            batches = self._batches(r, k)
            if not matching or len(batches) <= matching[-1]:
                return None
            parts.append(batches[matching[min(j, len(matching) - 1)]])
        if reverse:
            parts = [store.reverse_rows(p) for p in reversed(parts)]
        return Union(store.union(parts), [store.size(p) for p in parts])
