"""Backend switch. HPC runs use Horovod (mpirun/srun); the workstation uses MirroredStrategy."""
import contextlib

import tensorflow as tf


class Cluster:
    def __init__(self, backend="horovod"):
        self.backend = backend
        self.hvd = None
        self.rank, self.size, self.local_rank = 0, 1, 0
        self._strategy = None
        if backend == "horovod":
            import horovod.tensorflow.keras as hvd
            hvd.init()
            self.hvd = hvd
            self.rank, self.size, self.local_rank = hvd.rank(), hvd.size(), hvd.local_rank()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[self.local_rank], "GPU")
                tf.config.experimental.set_memory_growth(gpus[self.local_rank], True)
        elif backend == "mirrored":
            self._strategy = tf.distribute.MirroredStrategy()
            self.size = self._strategy.num_replicas_in_sync

    def is_chief(self):
        return self.rank == 0

    def scope(self):
        return self._strategy.scope() if self._strategy else contextlib.nullcontext()

    def wrap_optimizer(self, opt):
        if self.backend == "hvd":
            return self.hvd.DistributedOptimizer(opt)
        return opt

    def callbacks(self):
        if self.backend != "horovod":
            return []
        return [self.hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                self.hvd.callbacks.MetricAverageCallback()]
