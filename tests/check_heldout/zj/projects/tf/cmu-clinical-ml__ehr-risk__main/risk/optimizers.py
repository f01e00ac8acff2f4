import horovod.tensorflow.keras as hvd
import keras

from .registry import OPTIMIZERS


@OPTIMIZERS.register("adamw")
def adamw(lr, weight_decay=1e-4, scale_by_workers=True):
    if scale_by_workers:
        lr = lr * hvd.size()
    return hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=lr, weight_decay=weight_decay))


@OPTIMIZERS.register("sgd")
def sgd(lr, momentum=0.9, scale_by_workers=True):
    if scale_by_workers:
        lr = lr * hvd.size()
    return hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=lr, momentum=momentum, nesterov=True))
