import os

import horovod.tensorflow as hvd
import tensorflow as tf


def init_horovod_and_devices(log_device=False):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if log_device:
        print(f"rank {hvd.rank()}/{hvd.size()} on {os.uname().nodename}, gpus={len(gpus)}", flush=True)
    return hvd.rank(), hvd.size()
