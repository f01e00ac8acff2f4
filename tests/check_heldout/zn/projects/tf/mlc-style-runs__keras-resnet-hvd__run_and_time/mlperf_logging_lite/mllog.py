"""Minimal MLLOG emitter (rank 0) and a Keras callback for epoch / eval events."""
import json
import time

import keras
import horovod.tensorflow.keras as hvd

INIT_START, INIT_STOP = "init_start", "init_stop"
RUN_START, RUN_STOP = "run_start", "run_stop"
EPOCH_START, EPOCH_STOP = "epoch_start", "epoch_stop"
EVAL_ACCURACY = "eval_accuracy"
GLOBAL_BATCH_SIZE = "global_batch_size"
OPT_BASE_LR = "opt_base_learning_rate"


def event(key, value=None, **meta):
    if hvd.rank() != 0:
        return
    rec = {"namespace": "", "time_ms": int(time.time() * 1e3), "event_type": "POINT_IN_TIME",
           "key": key, "value": value, "metadata": meta}
    print(":::MLLOG " + json.dumps(rec), flush=True)


class MLLogCallback(keras.callbacks.Callback):
    """Logs epoch boundaries and the (already averaged) val accuracy; stops at the target.

    Put it after MetricAverageCallback so `logs` hold the averaged values on every rank, which
    makes every rank take the same stop decision.
    """

    def __init__(self, target):
        super().__init__()
        self.target = target

    def on_epoch_begin(self, epoch, logs=None):
        event(EPOCH_START, epoch_num=epoch)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        acc = float(logs.get("val_accuracy", 0.0))
        event(EVAL_ACCURACY, acc, epoch_num=epoch)
        event(EPOCH_STOP, epoch_num=epoch)
        if acc >= self.target:
            self.model.stop_training = True
