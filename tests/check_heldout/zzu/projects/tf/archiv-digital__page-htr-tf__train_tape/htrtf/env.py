"""Process setup. Must run before anything asks TensorFlow for devices."""
import os

import horovod.tensorflow as hvd


def init_worker():
    hvd.init()
    # one GPU per worker: hide the others before TF creates its devices
    os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    return hvd.rank(), hvd.size()
