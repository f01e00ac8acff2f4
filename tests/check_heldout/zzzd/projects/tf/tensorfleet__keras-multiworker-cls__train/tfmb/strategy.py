"""Pick how to distribute: Horovod (default), a tf.distribute strategy, or nothing."""
import contextlib
from dataclasses import dataclass
from typing import Any, Callable

import tensorflow as tf


@dataclass
class DistContext:
    kind: str
    rank: int = 0
    size: int = 1
    local_rank: int = 0
    scope: Callable[[], Any] = contextlib.nullcontext
    hvd: Any = None

    @property
    def is_chief(self):
        return self.rank == 0


def setup(kind="horovod"):
    if kind == "horovod":
        import horovod.tensorflow.keras as hvd
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        return DistContext("horovod", hvd.rank(), hvd.size(), hvd.local_rank(), hvd=hvd)
    if kind == "mirrored":
        strategy = tf.distribute.MirroredStrategy()
        return DistContext("mirrored", 0, strategy.num_replicas_in_sync, scope=strategy.scope)
    if kind == "multiworker":
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        resolver = strategy.cluster_resolver
        return DistContext("multiworker", resolver.task_id, strategy.num_replicas_in_sync, scope=strategy.scope)
    return DistContext("none")
