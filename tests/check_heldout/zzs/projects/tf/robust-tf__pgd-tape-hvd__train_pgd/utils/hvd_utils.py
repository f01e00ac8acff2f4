import tensorflow as tf
import horovod.tensorflow as hvd


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def allreduce_counts(*values):
    """Sum integer counters over workers (shards may differ by one batch at the end of the test set)."""
    t = tf.constant([float(v) for v in values], dtype=tf.float64)
    return hvd.allreduce(t, op=hvd.Sum, name="counts").numpy()
