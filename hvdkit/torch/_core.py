"""Steps 1-6 and 8 for PyTorch."""
import types

import torch
import horovod.torch as hvd

from hvdkit.common import errors as _errors
from hvdkit.common import heap as _heap
from hvdkit.common import log as _log
from hvdkit.common import metrics as _metrics
from hvdkit.common import schedule as _schedule
from hvdkit.common.context import Context, cpu_horovod_defaults, threads_per_rank
from hvdkit.common.options import horovod_args
from hvdkit.scale import job as _job
from hvdkit.scale import meter as _meter
from hvdkit.torch._consistency import check_consistent


def init(seed=None, threads=None, fail_fast=True):
    """Steps 1 and 2: start Horovod, pin one GPU per local rank (or split the CPU cores), seed.

    fail_fast=True: an uncaught exception ends this rank at once (os._exit) with one line naming it,
    so the job ends instead of hanging in the other ranks' next collective; atexit handlers do not run
    then. fail_fast=False keeps Python's own exception handling (and your atexit handlers).
    """
    _errors.default_stall_shutdown()  # a rank that skips a collective ends the job instead of hanging it
    gpu = torch.cuda.is_available()
    cpu_horovod_defaults(gpu=gpu)  # an allreduce that takes less CPU from the step
    if not gpu:
        _heap.keep_in_heap()  # a step's tensors reuse the heap instead of being mapped and faulted in each step
    hvd.init()
    if fail_fast:
        _errors.install(hvd.rank(), hvd.size())  # a failing rank ends the job now, naming itself
    local_rank, local_size = hvd.local_rank(), hvd.local_size()
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
        device = f"cuda:{torch.cuda.current_device()}"
    else:
        device = "cpu"
    n_threads = threads_per_rank(local_size, threads)
    torch.set_num_threads(n_threads)
    if seed is not None:
        # Distinct per-rank streams (dropout, augmentation); weights still start equal via broadcast_state.
        torch.manual_seed(int(seed) + hvd.rank())
    ctx = Context(hvd.rank(), hvd.size(), local_rank, local_size, device, n_threads)
    _job.attach(ctx, hvd, "torch")  # what hvdkit's tools measure from outside (hvdkit.scale.job)
    return ctx


def scale_lr(base_lr, rule="linear"):
    """Step 4: the learning rate for hvd.size() workers (linear: base_lr * size)."""
    return _schedule.scaled_lr(base_lr, hvd.size(), rule)


def warmup(optimizer, steps=None, epochs=None, steps_per_epoch=None, rule="linear"):
    """Step 4: ramp the LR of optimizer step s from lr / scale to lr, lr being the optimizer's (scale_lr'd) LR.

    lr(s) = lr / scale + (lr - lr / scale) * min(s / warmup, 1), scale = hvd.size() for rule="linear".
    Returns a LambdaLR: call scheduler.step() after every optimizer.step(). Before or after
    distributed_optimizer(), either works. Give the length as `steps`, or as `epochs` with `steps_per_epoch`.
    """
    n = _schedule.warmup_steps(steps, epochs, steps_per_epoch)
    start = 1.0 / _schedule.scale_factor(hvd.size(), rule)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: _schedule.warmup_lr(step, start, 1.0, n))


class ShardedLoader(torch.utils.data.DataLoader):
    """A DataLoader over this rank's shard; call set_epoch(e) (or let Checkpointer restore it) each epoch."""

    def set_epoch(self, epoch):
        self.sampler.set_epoch(epoch)

    @property
    def epoch(self):
        return self.sampler.epoch

    def state_dict(self):
        return {"epoch": self.sampler.epoch, "seed": self.sampler.seed}

    def load_state_dict(self, state):
        self.sampler.set_epoch(state["epoch"])


def shard(dataset, batch_size, shuffle=True, seed=0, drop_last=False, **loader_kwargs):
    """Step 3: this rank's part of `dataset`, `batch_size` samples per rank per step.

    All ranks get the same number of steps: with drop_last=False the sampler repeats a few samples
    to even out the shards, with drop_last=True it drops the remainder (at most size-1 samples).
    """
    if int(batch_size) < 1:
        raise ValueError(f"per-rank batch size must be >= 1, got {batch_size}")
    if len(dataset) < hvd.size():
        raise ValueError(f"data set of {len(dataset)} samples is smaller than the {hvd.size()} ranks")
    sampler = torch.utils.data.distributed.DistributedSampler(
        dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle, seed=seed, drop_last=drop_last)
    return ShardedLoader(dataset, batch_size=int(batch_size), sampler=sampler, **loader_kwargs)


def shard_eval(dataset, batch_size, **loader_kwargs):
    """Step 3 for evaluation: every sample on exactly one rank, none repeated or dropped.

    Rank r gets samples r, r + size, ...: ranks may differ by one sample or batch, so run no collective
    per batch; add each rank's (sum, count) pairs with average_metrics afterwards.
    """
    if int(batch_size) < 1:
        raise ValueError(f"per-rank batch size must be >= 1, got {batch_size}")
    mine = torch.utils.data.Subset(dataset, range(hvd.rank(), len(dataset), hvd.size()))
    return torch.utils.data.DataLoader(mine, batch_size=int(batch_size), shuffle=False, **loader_kwargs)


def distributed_optimizer(optimizer, model, compression="none", backward_passes_per_step=1, op="average"):
    """Step 5: average gradients across ranks inside optimizer.step(), overlapped with backward.

    Returns a new optimizer over the same param_groups: step the returned one from here on.
    """
    comp, reduce_op = horovod_args(hvd, compression, op)
    wrapped = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(), compression=comp,
        backward_passes_per_step=backward_passes_per_step, op=reduce_op)
    _report_steps(optimizer, wrapped)
    _keep_param_groups(wrapped)
    return wrapped


def _report_steps(original, wrapped):
    """Let schedulers made on `original` (warmup before step 5) see the wrapped optimizer's steps.

    The two share their param_groups, so such a scheduler sets the LR the wrapped optimizer uses. But
    a torch scheduler watches its own optimizer's step() for the order check, and nothing calls the
    original's any more: every run would warn "lr_scheduler.step() before optimizer.step()". Set the
    flag that check reads whenever the wrapped optimizer steps (tests/test_warmup.py fails if it moves).
    """
    def step(self, *args, **kwargs):
        original._opt_called = True
        return type(self).step(self, *args, **kwargs)

    wrapped.step = types.MethodType(step, wrapped)


def _keep_param_groups(wrapped):
    """Keep the param_groups the wrapped optimizer shares with the original through load_state_dict().

    torch's load_state_dict() puts new dicts in param_groups. A scheduler made on the original (warmup before
    step 5) goes on setting the LR in the old ones, so after a resume, or Horovod's broadcast_optimizer_state
    (it loads too), the wrapped optimizer would keep the loaded LR to the end of training. Copy the loaded
    values into the shared dicts instead (tests/test_warmup.py's resumed orders fail if this goes).
    """
    def load_state_dict(self, state_dict):
        shared = self.param_groups
        type(self).load_state_dict(self, state_dict)
        for old, new in zip(shared, self.param_groups):
            old.update(new)  # new["params"] is old["params"]: torch keeps the parameters it has
        self.param_groups = shared

    wrapped.load_state_dict = types.MethodType(load_state_dict, wrapped)


def broadcast_state(model, optimizer=None, root_rank=0):
    """Step 6: parameters and buffers (batch-norm statistics too), and optimizer state, from root_rank.

    Ranks whose models differ in shape (or that run other versions) stop here with one ConsistencyError
    line on every rank, instead of a broadcast error or a hang further on.
    """
    check_consistent(model)
    hvd.broadcast_parameters(model.state_dict(), root_rank=root_rank)
    if optimizer is None:
        return
    if optimizer.state_dict()["state"]:
        hvd.broadcast_optimizer_state(optimizer, root_rank=root_rank)
        return
    # A fresh optimizer has no state yet. Horovod would create it with a zero-gradient step, which
    # advances Adam's step count and skews its bias correction for the whole run; the state that the
    # first real (allreduced) step creates is identical everywhere anyway. Only the hyperparameters
    # can differ between ranks.
    groups = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    groups = hvd.broadcast_object(groups, root_rank=root_rank, name="hvdkit.param_groups")
    for group, source in zip(optimizer.param_groups, groups):
        group.update(source)


def average_metrics(metrics):
    """Step 8: {name: (sum, count)} on each rank -> {name: sum of sums / sum of counts} on every rank."""
    names, flat = _metrics.pack(metrics, _item)
    reduced = hvd.allreduce(torch.tensor(flat, dtype=torch.float64), op=hvd.Sum, name="hvdkit.average_metrics")
    return _metrics.unpack(names, reduced.tolist())


def _item(x):
    return x.item() if isinstance(x, torch.Tensor) else float(x)


def print0(*args, **kwargs):
    """print() on rank 0 only, flushed."""
    _log.print0(hvd.rank(), *args, **kwargs)


def progress(iterable=None, batch_size=None, **kwargs):
    """A tqdm bar on rank 0 and, around an iterable, hvdkit's step meter (hvdkit.scale.meter.metered_bar)."""
    return _meter.metered_bar(hvd.rank(), iterable, batch_size, **kwargs)
