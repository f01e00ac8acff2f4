"""The Horovod run of `--against`, on each rank: `python -m hvdkit.check.against.record HVD.py ARGS` under mpirun.

The --run bootstrap runs the script (its hooks count the optimizer steps and stop the rank after --steps);
the Recorder keeps, in $HVDKIT_CHECK_OUT/rank-R/: every batch the rank's data pipeline yielded, window by
window (a window is what happened between two optimizer steps: batches-K.pkl), and record.json with, per
step, the LR of each parameter group, the loss, a digest of each trained tensor before and after the step and
of the optimizer state before it, and what each batch was (its size, its samples' digests, the sampler's
indices, how many samples one pass of its pipeline holds). Rank 0 also keeps the tensors themselves
(weights-before-K.npz when they are not those after step K-1, weights-after-K.npz) and its optimizer state
before step 2 (opt-before-2.pkl): the replaying run starts each of its steps from them.
"""
import os
import sys

from hvdkit.check.against import store
from hvdkit.check.against.base import Base, Hooks
from hvdkit.check.run import bootstrap
from hvdkit.check.run.observer import StopRun


class Recorder(Base):
    keeps_sources = True

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.dir = store.rank_dir(self.out_dir, self.rank)
        self.data = {"names": None, "shapes": None, "lr": {}, "built_lr": None, "loss": {}, "before": {},
                     "after": {}, "opt_before": {}, "yields": {}, "sync_bn": False, "fit": False, "optimizers": [],
                     "layers_off": [], "sources": []}
        self.windows = {}   # window k -> [batch as numpy structure]

    # --- batches -------------------------------------------------------------------------------------
    def on_yield(self, element, meta):
        self._keep(self.rec.steps + 1, self.fw.to_numpy(element), meta)
        return element

    def fit_batches(self, dataset, meta):
        it = iter(dataset)
        out = []
        for k in range(1, self.steps + 1):
            try:
                element = next(it)
            except StopIteration:
                break
            self._keep(k, self.fw.to_numpy(element), dict(meta))
            out.append(element)
        return out

    def _keep(self, k, struct, meta):
        n = store.size(struct)
        self.windows.setdefault(k, []).append(struct)
        self.data["yields"].setdefault(str(k), []).append(
            {**meta, "n": n, "per_pass": store.per_pass(meta, n), "sig": repr(store.signature(struct)),
             "rows": store.row_digests(struct)})

    # --- steps ---------------------------------------------------------------------------------------
    def before_step(self, lr=None):
        super().before_step(lr)
        if self.fw is None:
            return
        k = self.rec.steps + 1
        self.data["lr"][str(k)] = self.fw.lrs()
        if k == 1:
            self.data["built_lr"] = self.fw.built_lrs()
        self.data.update(sync_bn=self.fw.uses_sync_bn(), optimizers=self.fw.optimizer_kinds())
        arrays = self.fw.tensors()
        if not arrays:  # a Keras model built by its first call has no weights before it: nothing to compare
            self.data["before"][str(k)] = None
            return
        self.data["names"], self.data["shapes"] = self.fw.names(), [list(a.shape) for a in arrays]
        digests = [store.digest(a) for a in arrays]
        self.data["before"][str(k)] = digests
        opt = self.fw.opt_state()
        self.data["opt_before"][str(k)] = store.digest_structure(opt)
        if self.rank == 0:
            if k == 1 or digests != self.data["after"].get(str(k - 1)):
                store.save_arrays(os.path.join(self.dir, f"weights-before-{k}.npz"), arrays)
            if k == 2:
                store.save_pickle(os.path.join(self.dir, "opt-before-2.pkl"), opt)

    def after_step(self, count=1):
        k = self.rec.steps + count
        if self.fw is not None:
            arrays = self.fw.tensors()
            self.data["after"][str(k)] = [store.digest(a) for a in arrays]
            self.data["loss"][str(k)] = self.fw.take_losses()
            if self.rank == 0:
                store.save_arrays(os.path.join(self.dir, f"weights-after-{k}.npz"), arrays)
        for w in sorted(w for w in self.windows if w <= k):
            store.save_pickle(os.path.join(self.dir, f"batches-{w}.pkl"), self.windows.pop(w))
        self.rec.steps += count
        if self.rec.steps >= self.steps:
            self.write()
            raise StopRun()

    def write(self):
        super().write()
        if self.fw is not None:  # (the script's objects may be gone by now: its frames were left by StopRun)
            self.data.update(fit=self.fit, layers_off=self.layers_off, sources=self.fw.source_rows)
        store.write_json(os.path.join(self.dir, "record.json"), self.data)


if __name__ == "__main__":
    bootstrap.main(sys.argv[1:], observer=Recorder, extra=Hooks)
