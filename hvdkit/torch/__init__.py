"""hvdkit for PyTorch: the eight Horovod steps (hvdkit.tensorflow has the same names; docs/eight-steps.md).

    import hvdkit.torch as hk
    ctx = hk.init(seed=0)                                            # 1, 2
    loader = hk.shard(train_set, batch_size=64)                      # 3
    val = hk.shard_eval(val_set, batch_size=256)                     # 3 (each sample once)
    opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(0.01))  # 4
    sched = hk.warmup(opt, epochs=2, steps_per_epoch=len(loader))    # 4 (before or after 5)
    opt = hk.distributed_optimizer(opt, model)                       # 5
    hk.broadcast_state(model, opt)                                   # 6
    ckpt = hk.Checkpointer("ckpt")                                     # 7
    start = ckpt.restore(model=model, optimizer=opt, scheduler=sched, loader=loader)
    hk.average_metrics({"loss": (loss_sum, n)})                      # 8
"""
# First: a missing framework is one error naming its install command. hk.hvd and hk.torch stay public.
from hvdkit.torch._frameworks import hvd as hvd, torch as torch
from hvdkit.torch._core import (
    average_metrics, broadcast_state, distributed_optimizer, init, print0, progress, scale_lr, shard, shard_eval,
    ShardedLoader, warmup,
)
from hvdkit.torch._checkpoint import Checkpointer
from hvdkit.common.checkpoint import CheckpointError
from hvdkit.torch._consistency import ConsistencyError, check_consistent
from hvdkit.timeline.capture import TimelineWindow as _TimelineWindow

timeline_window = _TimelineWindow.factory(hvd)

__all__ = [
    "init", "shard", "shard_eval", "ShardedLoader", "scale_lr", "warmup", "distributed_optimizer",
    "broadcast_state", "Checkpointer", "CheckpointError", "average_metrics", "check_consistent", "ConsistencyError",
    "print0", "progress", "timeline_window",
]
