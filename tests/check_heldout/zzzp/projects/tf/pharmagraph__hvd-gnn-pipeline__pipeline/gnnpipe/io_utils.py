import os

import horovod.tensorflow as hvd


def save_weights(model, work_dir, tag):
    if hvd.rank() != 0:
        return None
    os.makedirs(work_dir, exist_ok=True)
    path = os.path.join(work_dir, "ggnn_%s.weights.h5" % tag)
    model.save_weights(path)
    return path


def log(*a):
    if hvd.rank() == 0:
        print("[pipeline]", *a, flush=True)
