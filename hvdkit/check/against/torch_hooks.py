"""PyTorch side of `--against`, in both runs (given the torch module the script imported; imports none itself).

- Data: every batch a DataLoader iterator yields goes through obs.on_yield, with the sampler's indices;
  the recording run keeps it, the replaying run gets the ranks' union back in its place.
- Dropout (F.dropout and its kin) is the identity in both runs: a mask drawn on each rank cannot be drawn
  again in one process, and the comparison is about the data-parallel arithmetic, not the masks.
- Batch norm in training mode: in the replaying run, `obs.ghost` (the ranks' batch sizes at this step)
  splits the union so each rank's part is normalised by its own statistics, as it was on its rank (the
  running statistics follow rank 0's part). Not when the Horovod script used SyncBatchNorm.
- The loss: the value of each scalar `backward()`.
- Teacher forcing, learning rates, optimizer state: torch_adapter.Adapter, which the observers call.
"""
import functools
import itertools
import weakref

from hvdkit.check.against.torch_adapter import Adapter

DROPOUTS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")


def install(torch, obs):
    obs.fw = Adapter(torch, obs)
    _data(torch, obs)
    _dropout_off(torch, obs)
    _batch_norm(torch, obs)
    _loss(torch, obs)


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
