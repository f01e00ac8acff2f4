"""hvdkit for TensorFlow 2 / Keras 3: the eight Horovod steps.

    import hvdkit.tensorflow as hk
    ctx = hk.init(seed=0)                                             # 1, 2 (before building models)
    train = hk.shard(tf.data.Dataset.from_tensor_slices((x, y)), 64)  # 3
    opt = keras.optimizers.Adam(hk.warmup(1e-3, epochs=2, steps_per_epoch=train.steps))  # 4
    tape = hk.DistributedGradientTape(tape)                           # 5 (inside the step)
    hk.broadcast_state(model, opt)                                    # 6
    start = hk.Checkpointer("ckpt").restore(model=model, optimizer=opt, data=train)      # 7
    hk.average_metrics({"loss": (loss_sum, n)})                       # 8
"""
from hvdkit.common.frameworks import require

tf = require("tensorflow", "hvdkit.tensorflow")
hvd = require("horovod.tensorflow", "hvdkit.tensorflow")

from hvdkit.tensorflow._core import (  # noqa: E402
    DistributedGradientTape, DistributedOptimizer, WarmupSchedule, allreduce_gradients, average_metrics,
    broadcast_state, build_optimizer, init, log, print0, progress, scale_lr, tf_variables, warmup,
)
from hvdkit.tensorflow._data import ShardedDataset, shard  # noqa: E402
from hvdkit.tensorflow._checkpoint import Checkpointer  # noqa: E402
from hvdkit.tensorflow.callbacks import BroadcastCallback, MetricAverageCallback, WarmupCallback  # noqa: E402
from hvdkit.common.checkpoint import CheckpointError  # noqa: E402
from hvdkit.tensorflow._consistency import ConsistencyError, check_consistent  # noqa: E402
from hvdkit.common.timeline_capture import TimelineWindow  # noqa: E402

timeline_window = TimelineWindow.factory(hvd)

__all__ = [
    "init", "scale_lr", "warmup", "WarmupSchedule", "shard", "ShardedDataset", "DistributedGradientTape",
    "DistributedOptimizer", "allreduce_gradients",
    "broadcast_state", "build_optimizer", "tf_variables", "Checkpointer", "CheckpointError", "average_metrics",
    "check_consistent", "ConsistencyError",
    "print0", "log", "progress", "timeline_window", "BroadcastCallback", "MetricAverageCallback", "WarmupCallback",
    "hvd",
]
