"""PyTorch side of `--against`, in both runs (given the torch module the script imported; imports none itself).

- Data: every batch a DataLoader iterator yields goes through obs.on_yield, with the sampler's indices;
  the recording run keeps it, the replaying run gets the ranks' union back in its place.
- Dropout (F.dropout and its kin) is the identity in both runs: a mask drawn on each rank cannot be drawn
  again in one process, and the comparison is about the data-parallel arithmetic, not the masks.
- Batch norm in training mode: in the replaying run, `obs.ghost` (the ranks' batch sizes at this step)
  splits the union so each rank's part is normalised by its own statistics, as it was on its rank (the
  running statistics follow rank 0's part). Not when the Horovod script used SyncBatchNorm.
- The loss: the value of each scalar `backward()`.
- Teacher forcing, learning rates, optimizer state: the Adapter below, called by the observers.
"""
import functools
import itertools
import weakref

DROPOUTS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")


def install(torch, obs):
    obs.fw = Adapter(torch, obs)
    _data(torch, obs)
    _dropout_off(torch, obs)
    _batch_norm(torch, obs)
    _loss(torch, obs)


class Adapter:
    """What the observers need from PyTorch: tensors in and out, LRs, optimizer state, batches as numpy."""
    forward_before_step = True  # the optimizer step (where steps are counted) comes after the forward pass

    def __init__(self, torch, obs):
        self.torch, self.obs = torch, obs
        self.modules = weakref.WeakSet()   # modules run in training mode: where the parameters' names come from
        self.losses = []
        self.source_rows = []  # (tf_hooks digests tf.data sources; a DataLoader's sampler gives indices instead)

    # --- batches -------------------------------------------------------------------------------------
    def to_numpy(self, element):
        from hvdkit.check.against import store
        t = self.torch
        return store.to_numpy(element, lambda x: x.detach().cpu().numpy().copy() if t.is_tensor(x) else None)

    def from_numpy(self, struct):
        from hvdkit.check.against import store
        return store.from_numpy(struct, self.torch.from_numpy)

    # --- the trained tensors ---------------------------------------------------------------------------
    def params(self):
        return self.obs.params() if self.obs.params else []

    def names(self):
        params = self.params()
        named = {}
        for m in sorted(self.modules, key=lambda m: -sum(1 for _ in m.parameters())):
            for name, p in m.named_parameters():
                named.setdefault(id(p), name)
        return [named.get(id(p), f"param{i}") for i, p in enumerate(params)]

    def tensors(self):
        return [p.detach().cpu().numpy().copy() for p in self.params()]

    def load(self, arrays):
        params = self.params()
        with self.torch.no_grad():
            for p, a in zip(params, arrays):
                p.copy_(self.torch.from_numpy(a).to(p.device))

    # --- optimizers ------------------------------------------------------------------------------------
    def optimizers(self):
        return self.obs.optimizers() if self.obs.optimizers else []

    def groups(self):
        """Every parameter group once: Horovod's DistributedOptimizer is a second optimizer over the same groups."""
        seen, out = set(), []
        for o in self.optimizers():
            for g in o.param_groups:
                if id(g) not in seen:
                    seen.add(id(g))
                    out.append(g)
        return out

    def lrs(self):
        return [float(g["lr"]) for g in self.groups()]

    def built_lrs(self):
        """The LR each group was configured with: a scheduler's base (initial_lr) if one is attached."""
        return [float(g.get("initial_lr", g["lr"])) for g in self.groups()]

    def set_lrs(self, values):
        groups = self.groups()
        for g, v in zip(groups, itertools.cycle(values) if len(values) < len(groups) else values):
            g["lr"] = v

    def opt_state(self):
        """The optimizers' state of each trained tensor, in the tensors' order: [{key: numpy or number}]."""
        out = []
        for p in self.params():
            state = {}
            for o in self.optimizers():
                state.update(o.state.get(p, {}))
            out.append({k: (v.detach().cpu().numpy().copy() if self.torch.is_tensor(v) else v) for k, v in state.items()})
        return out

    def load_opt_state(self, saved):
        params = self.params()
        if len(saved) != len(params):
            return False
        for p, s in zip(params, saved):
            owner = next((o for o in self.optimizers() if any(p is q for g in o.param_groups for q in g["params"])), None)
            if owner is None:
                return False
            owner.state[p] = {k: (self.torch.from_numpy(v.copy()) if hasattr(v, "shape") else v) for k, v in s.items()}
        return True

    def take_losses(self):
        out, self.losses = self.losses, []
        return out

    def uses_sync_bn(self):
        return any("SyncBatchNorm" in type(m).__name__ for m in self.modules)

    def optimizer_kinds(self):
        return sorted({type(o).__name__ for o in self.optimizers()})


def _data(torch, obs):
    from torch.utils.data import dataloader
    base = dataloader._BaseDataLoaderIter
    serial = itertools.count(1)
    ids = weakref.WeakKeyDictionary()
    pending = weakref.WeakKeyDictionary()   # indices the sampler gave, waiting for their batch

    next_index = base._next_index

    def observed_next_index(self):
        index = next_index(self)
        pending.setdefault(self, []).append(index)
        return index
    base._next_index = observed_next_index

    real_next = base.__next__

    @functools.wraps(real_next)
    def observed_next(self):
        element = real_next(self)
        if self not in ids:
            ids[self] = next(serial)
        queue = pending.get(self) or []
        index = queue.pop(0) if queue else None
        meta = {"iter": ids[self], "index": list(index) if isinstance(index, (list, tuple)) else None,
                "per_pass": _per_pass(self), "universe": _universe(self)}
        return obs.on_yield(element, meta)
    base.__next__ = observed_next


def _per_pass(it):
    """Samples one pass of this loader yields (None: unknown, e.g. an IterableDataset)."""
    try:
        sampler = it._index_sampler
        inner = getattr(sampler, "sampler", None)
        if inner is not None and getattr(sampler, "batch_size", None):
            n = len(inner)
            return n - n % sampler.batch_size if getattr(sampler, "drop_last", False) else n
        return len(sampler)
    except TypeError:
        return None


def _universe(it):
    try:
        return len(it._dataset)
    except TypeError:
        return None


def _dropout_off(torch, obs):
    F = torch.nn.functional
    for name in DROPOUTS:
        real = getattr(F, name, None)
        if real is None:
            continue

        def identity(input, *a, _name=name, **k):
            obs.on_simulated_layer(f"torch.nn.functional.{_name}")
            return input
        setattr(F, name, functools.wraps(real)(identity))


def _batch_norm(torch, obs):
    F = torch.nn.functional
    real = F.batch_norm

    @functools.wraps(real)
    def ghost_batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                         eps=1e-5):
        sizes = obs.ghost
        if not (training and sizes and len(sizes) > 1 and sum(sizes) == input.shape[0]):
            return real(input, running_mean, running_var, weight, bias, training, momentum, eps)
        parts = torch.split(input, list(sizes))
        out = [real(parts[0], running_mean, running_var, weight, bias, True, momentum, eps)]
        out += [real(p, None, None, weight, bias, True, momentum, eps) for p in parts[1:]]
        return torch.cat(out)
    F.batch_norm = ghost_batch_norm

    def forward_pre(module, args):
        if module.training and torch.is_grad_enabled():
            obs.fw.modules.add(module)
            obs.on_training_forward()
    torch.nn.modules.module.register_module_forward_pre_hook(forward_pre)


def _loss(torch, obs):
    real = torch.Tensor.backward

    @functools.wraps(real)
    def observed_backward(self, *a, **k):
        if self.numel() == 1 and self.is_floating_point():
            obs.fw.losses.append(float(self.detach()))
        return real(self, *a, **k)
    torch.Tensor.backward = observed_backward
