import tensorflow as tf
import horovod.tensorflow as hvd


def pin_gpu():
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def broadcast_model_and_optimizer(model, opt, root_rank=0):
    """Call once, after the first step has created the optimizer slots."""
    hvd.broadcast_variables(model.variables, root_rank=root_rank)
    hvd.broadcast_variables(opt.variables, root_rank=root_rank)
