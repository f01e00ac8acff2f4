import tensorflow as tf
import horovod.tensorflow as hvd


def init_and_pin():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def sync_initial_state(model, optimizer):
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def global_mean(value, name):
    return hvd.allreduce(tf.convert_to_tensor(value, tf.float32), op=hvd.Average, name=name)
