import time

import keras
import horovod.tensorflow as hvd_tf


class WallTimeGuard(keras.callbacks.Callback):
    """Stop fit() at an epoch end when the next epoch would not finish before the job ends.

    The decision is taken on rank 0 and broadcast, so all ranks stop after the same epoch.
    """

    def __init__(self, end_time, safety=300):
        super().__init__()
        self.end_time = end_time
        self.safety = safety
        self.stopped = False
        self._t0 = None
        self._longest = 0.0

    def on_epoch_begin(self, epoch, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._longest = max(self._longest, time.time() - self._t0)
        stop = False
        if self.end_time is not None:
            stop = time.time() + self._longest + self.safety > self.end_time
        stop = hvd_tf.broadcast_object(stop, root_rank=0, name="walltime_stop")
        if stop:
            self.stopped = True
            self.model.stop_training = True
