"""The sequential run of `--against`: `python -m hvdkit.check.against.replay SEQ.py ARGS`, one process.

SEQ.py runs as written under the --run bootstrap, with the Replayer steering it through the framework hooks:
- its trained tensors are set to rank 0's weights before each step (before step 1: at its first training
  forward pass, or before the compiled step; before step k > 1: right after its step k - 1), and, when the
  Horovod ranks only came to agree during step 1 (a broadcast after the first step: Horovod's TF 2 and
  Keras idiom), to rank 0's optimizer state before step 2 as well;
- each batch its pipeline yields that is shaped like the Horovod run's training batches is replaced by the
  union of the ranks' batches at the same step (the j-th such batch of a step by the ranks' j-th);
- its optimizers step at rank 0's LR of that step (its own LR, as written, is kept for the LR ratio);
- after each step its tensors are kept (after-K.npz) for compare.py.
It runs twice at once: with the union in rank order, and with HVDKIT_AGAINST_ORDER=reversed, the same
samples in another order (the ranks' parts reversed, and each part's rows), which is the same step up to
the order of its float sums: how far apart those two end is the reduction-order noise tolerance.py bounds
the comparison with. What it saw goes to $HVDKIT_CHECK_OUT/replay.json; a pair it cannot align gets a
one-line `reason`.
"""
import os
import sys

from hvdkit.check.against import store
from hvdkit.check.against.base import Base, Hooks
from hvdkit.check.against.recorded import HorovodRun
from hvdkit.check.run import bootstrap
from hvdkit.check.run.observer import StopRun


class Replayer(Base):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.hvd = HorovodRun(os.environ["HVDKIT_AGAINST_RECORD"], int(os.environ["HVDKIT_AGAINST_RANKS"]))
        self.align = self.hvd.alignment(self.steps)
        self.sig = self.hvd.train_sig
        self.reverse = os.environ.get("HVDKIT_AGAINST_ORDER") == "reversed"
        self.loaded = 0        # the step whose starting weights the tensors hold
        self.late = []         # steps whose weights could only be set after their forward pass
        self.unset = []        # steps the Horovod run began without weights (built by the step): not set
        self.j = 0             # training-shaped batches yielded in this window
        self.out = {"steps": {}, "own": {"yields": {}, "lr": {}, "built_lr": None},
                    "substituted": {}, "reason": None, "opt_state_loaded": None}

    # --- batches -------------------------------------------------------------------------------------
    def on_yield(self, element, meta):
        k = self.rec.steps + 1
        struct = self.fw.to_numpy(element)
        self._own(k, struct, meta)
        if repr(store.signature(struct)) != self.sig:
            return element
        u = self.hvd.union(k, self.j, self.reverse)
        self.j += 1
        if u is None:
            return element
        self.ghost = None if self.hvd.root.get("sync_bn") else u.sizes
        self.out["substituted"][str(k)] = self.out["substituted"].get(str(k), 0) + 1
        return self.fw.from_numpy(u.batch)

    def fit_batches(self, dataset, meta):
        try:
            self._own(1, self.fw.to_numpy(next(iter(dataset))), meta)
        except StopIteration:
            return []
        out = []
        for k in range(1, self.steps + 1):
            u = self.hvd.union(k, 0, self.reverse)
            if u is None:
                break
            out.append(self.fw.from_numpy(u.batch))
            self.out["substituted"][str(k)] = 1
        return out

    def _own(self, k, struct, meta):
        """What the sequential script's own pipeline yielded (for the batch ratio and step 3's volume)."""
        n = store.size(struct)
        self.out["own"]["yields"].setdefault(str(k), []).append(
            {"iter": meta.get("iter"), "n": n, "sig": repr(store.signature(struct)),
             "per_pass": store.per_pass(meta, n), "universe": meta.get("universe")})

    # --- weights -------------------------------------------------------------------------------------
    def on_training_forward(self):
        if self.rec.steps == 0 and self.loaded == 0 and self.fw.params():
            self._load(1)

    def _load(self, k):
        arrays, mine = self.hvd.weights_before(k), self.fw.tensors()
        if not arrays or not mine:  # a model built by step k itself: the step starts from the script's own weights
            self.unset.append(k)
            self.loaded = k
            return
        shapes = [tuple(a.shape) for a in arrays]
        if [tuple(a.shape) for a in mine] != shapes:
            self._cannot(_model_mismatch(self.hvd.root.get("names") or [], shapes, self.fw.names(), mine))
        self.fw.load(arrays)
        # The optimizer state too where step 1 did not start from rank 0's weights here or on every rank:
        # a broadcast after the first step, a model built by it, weights set after its forward pass.
        if k == 2 and (self.align == 2 or 1 in self.unset or 1 in self.late):
            saved = self.hvd.opt_state(k)
            self.out["opt_state_loaded"] = bool(saved is not None and self.fw.load_opt_state(saved))
        self.loaded = k

    def _cannot(self, reason):
        self.out["reason"] = reason
        self.write()
        raise StopRun()

    # --- steps ---------------------------------------------------------------------------------------
    def before_step(self, lr=None):
        k = self.rec.steps + 1
        if self.loaded != k:  # torch: the forward pass already ran from the script's own weights
            self._load(k)
            if self.fw.forward_before_step:
                self.late.append(k)
        super().before_step(lr)
        # Read once per step: a compiled step may come in several calls (hvdkit's train_step: the gradients,
        # then the update), and after the first the optimizer holds the Horovod run's LR.
        own = self.out["own"]["lr"].setdefault(str(k), self.fw.lrs())
        if k == 1 and self.out["own"]["built_lr"] is None:
            self.out["own"]["built_lr"] = self.fw.built_lrs()
        hvd_lr = self.hvd.lr(k)
        if hvd_lr and own:
            self.fw.set_lrs(hvd_lr)
        if self.fit:
            u = self.hvd.union(k, 0, self.reverse)
            self.ghost = None if u is None or self.hvd.root.get("sync_bn") else u.sizes
            self.fw.before_compiled_step()  # the ghost sizes as a variable, before the compiled step reads them

    def after_step(self, count=1):
        k = self.rec.steps + count
        own = self.out["own"]["lr"].get(str(k))
        if own:
            self.fw.set_lrs(own)
        if str(k) not in self.out["substituted"]:
            self._cannot(self._no_batches(k))
        store.save_arrays(os.path.join(self.out_dir, f"after-{k}.npz"), self.fw.tensors())
        self.out["steps"][str(k)] = {"late": k in self.late or k in self.unset, "loss": self.fw.take_losses()}
        self.rec.steps += count
        self.j = 0
        if self.rec.steps >= self.steps:
            self.write()
            raise StopRun()
        self._load(k + 1)

    def _no_batches(self, k):
        own = [y["sig"] for y in self.out["own"]["yields"].get(str(k), [])]
        if self.sig is None:
            return ("no batch of the Horovod run was seen: its data must come through a torch DataLoader, a "
                    "tf.data data set iterated in the script, or Keras fit")
        if not own:
            return (f"step {k} of the sequential script took no batch the hooks could see (a torch DataLoader, a "
                    "tf.data data set iterated in the script, Keras fit): draw its batches through one of those")
        return (f"the sequential script's batches {own[-1]} are not shaped like the Horovod ranks' {self.sig}: "
                "the two scripts must feed the model the same kind of batch")

    def write(self):
        super().write()
        self.out["layers_off"] = self.layers_off
        self.out["names"] = self.fw.names() if self.fw is not None else []
        store.write_json(os.path.join(self.out_dir, "replay.json"), self.out)


def _model_mismatch(hvd_names, hvd_shapes, seq_names, seq_arrays):
    seq_shapes = [tuple(a.shape) for a in seq_arrays]
    if len(hvd_shapes) != len(seq_shapes):
        return (f"the two scripts train different models: the Horovod script's has {len(hvd_shapes)} trained "
                f"tensors, the sequential script's {len(seq_shapes)}: build the same model in both")
    i = next(i for i, (a, b) in enumerate(zip(hvd_shapes, seq_shapes)) if a != b)
    name = hvd_names[i] if i < len(hvd_names) else f"tensor {i}"
    return (f"the two scripts train different models: {name} is {list(hvd_shapes[i])} in the Horovod script, "
            f"{list(seq_shapes[i])} in the sequential one: build the same model in both")


if __name__ == "__main__":
    bootstrap.main(sys.argv[1:], observer=Replayer, extra=Hooks)
