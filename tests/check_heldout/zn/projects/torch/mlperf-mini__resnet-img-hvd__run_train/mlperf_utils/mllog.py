"""A stripped-down stand-in for mlperf_logging.mllog: ':::MLLOG {json}' lines from rank 0."""
import functools
import json
import time

import torch
import horovod.torch as hvd

INIT_START, INIT_STOP = "init_start", "init_stop"
RUN_START, RUN_STOP = "run_start", "run_stop"
EPOCH_START, EPOCH_STOP = "epoch_start", "epoch_stop"
EVAL_ACCURACY = "eval_accuracy"
GLOBAL_BATCH_SIZE = "global_batch_size"
OPT_BASE_LR = "opt_base_learning_rate"


def init_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size(), hvd.local_rank()


def rank0_only(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if hvd.rank() == 0:
            return fn(*args, **kwargs)
        return None
    return wrapper


@rank0_only
def event(key, value=None, epoch=None, **metadata):
    rec = {"namespace": "", "time_ms": int(time.time() * 1000), "event_type": "POINT_IN_TIME",
           "key": key, "value": value, "metadata": dict(metadata, epoch_num=epoch)}
    print(":::MLLOG " + json.dumps(rec), flush=True)
