"""Distributed bookkeeping: one process per GPU, launched by horovodrun."""
from dataclasses import dataclass

import tensorflow as tf
import horovod.tensorflow as hvd


@dataclass(frozen=True)
class DistributedContext:
    world_size: int
    rank: int
    local_rank: int

    @property
    def is_chief(self):
        return self.rank == 0

    def input_context(self):
        # mirrors what tf.distribute hands to dataset_fn
        return tf.distribute.InputContext(
            num_input_pipelines=self.world_size,
            input_pipeline_id=self.local_rank,
            num_replicas_in_sync=self.world_size)


def init_distributed():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.rank()], True)
        tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")
    return DistributedContext(hvd.size(), hvd.rank(), hvd.local_rank())
