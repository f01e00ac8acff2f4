import keras
import horovod.tensorflow.keras as hvd


def make_optimizer(base_lr, kind="adam"):
    """Optimizer with the learning rate scaled by the number of workers, wrapped for Horovod."""
    lr = base_lr * hvd.size()
    if kind == "adam":
        opt = keras.optimizers.Adam(learning_rate=lr)
    elif kind == "sgd":
        opt = keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
    else:
        raise ValueError(f"unknown optimizer {kind!r}")
    return hvd.DistributedOptimizer(opt), lr
