"""hvdkit for TensorFlow 2 / Keras 3: the eight Horovod steps (hvdkit.torch has the same names; docs/eight-steps.md).

    import hvdkit.tensorflow as hk
    ctx = hk.init(seed=0)                                             # 1, 2 (before building models)
    train = hk.shard(tf.data.Dataset.from_tensor_slices((x, y)), 64)  # 3
    val = hk.shard_eval(val_set, 256)                                 # 3 (each sample once)
    opt = keras.optimizers.Adam(hk.scale_lr(1e-3))                    # 4
    hk.warmup(opt, epochs=2, steps_per_epoch=train.steps)             # 4 (before or after 5)
    tape = hk.DistributedGradientTape(tape)                           # 5 (inside the step), or:
    step = hk.train_step(model, loss_fn, opt)                         # 5 (the whole step, XLA if faster), or:
    opt = hk.distributed_optimizer(opt)                               # 5 (apply_gradients, model.fit)
    hk.broadcast_state(model, opt)                                    # 6
    start = hk.Checkpointer("ckpt").restore(model=model, optimizer=opt, data=train)      # 7
    hk.average_metrics({"loss": (loss_sum, n)})                       # 8

Importing this module imports TensorFlow without its C++ start-up notices unless TF_CPP_MIN_LOG_LEVEL is
set (set it to 0 to see them).
"""
# First: a missing framework is one error naming its install command. hk.hvd and hk.tf stay public.
from hvdkit.tensorflow._frameworks import hvd as hvd, tf as tf
from hvdkit.tensorflow._core import (
    DistributedGradientTape, average_metrics, broadcast_state, distributed_optimizer, init, print0, progress,
    scale_lr, warmup,
)
from hvdkit.tensorflow._step import TrainStep, train_step
from hvdkit.tensorflow._data import ShardedDataset, shard, shard_eval
from hvdkit.tensorflow._checkpoint import Checkpointer
from hvdkit.tensorflow.callbacks import BroadcastCallback, MetricAverageCallback, WarmupCallback
from hvdkit.common.checkpoint import CheckpointError
from hvdkit.tensorflow._consistency import ConsistencyError, check_consistent
from hvdkit.timeline.capture import TimelineWindow as _TimelineWindow

timeline_window = _TimelineWindow.factory(hvd)

__all__ = [
    "init", "shard", "shard_eval", "ShardedDataset", "scale_lr", "warmup", "distributed_optimizer",
    "DistributedGradientTape", "train_step", "TrainStep", "broadcast_state", "Checkpointer", "CheckpointError",
    "average_metrics",
    "check_consistent", "ConsistencyError", "print0", "progress", "timeline_window",
    "BroadcastCallback", "MetricAverageCallback", "WarmupCallback",
]
