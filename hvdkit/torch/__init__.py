"""hvdkit for PyTorch: the eight Horovod steps.

    import hvdkit.torch as hk
    ctx = hk.init(seed=0)                                            # 1, 2
    loader = hk.shard(train_set, batch_size=64)                      # 3
    opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(0.01))  # 4
    sched = hk.warmup(opt, epochs=2, steps_per_epoch=len(loader))    # 4
    opt = hk.distributed_optimizer(opt, model)                       # 5
    hk.broadcast_state(model, opt)                                   # 6
    ckpt = hk.Checkpointer("ckpt"); start = ckpt.restore(model=model, optimizer=opt, scheduler=sched, loader=loader)  # 7
    hk.average_metrics({"loss": (loss_sum, n)})                      # 8
"""
from hvdkit.common.frameworks import require

torch = require("torch", "hvdkit.torch")
hvd = require("horovod.torch", "hvdkit.torch")

from hvdkit.torch._core import (  # noqa: E402
    average_metrics, broadcast_state, distributed_optimizer, init, log, print0, progress, scale_lr, shard,
    ShardedLoader, warmup,
)
from hvdkit.torch._checkpoint import Checkpointer  # noqa: E402
from hvdkit.common.checkpoint import CheckpointError  # noqa: E402
from hvdkit.torch._consistency import ConsistencyError, check_consistent  # noqa: E402
from hvdkit.common.timeline_capture import TimelineWindow  # noqa: E402

timeline_window = TimelineWindow.factory(hvd)

__all__ = [
    "init", "scale_lr", "warmup", "shard", "ShardedLoader", "distributed_optimizer", "broadcast_state",
    "Checkpointer", "CheckpointError", "check_consistent", "ConsistencyError", "average_metrics",
    "print0", "log", "progress", "timeline_window", "hvd",
]
