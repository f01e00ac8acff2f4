import keras
import horovod.tensorflow.keras as hvd


def build_optimizer(name, lr, weight_decay=0.0):
    """Optimizer for the given name, learning rate already scaled by the caller."""
    if name == "sgd":
        return hvd.DistributedOptimizer(keras.optimizers.SGD(lr, momentum=0.9, nesterov=True))
    if name == "adam":
        return hvd.DistributedOptimizer(keras.optimizers.Adam(lr))
    if name == "adamw":
        return keras.optimizers.AdamW(lr, weight_decay=weight_decay)
    raise ValueError(f"unknown optimizer {name}")
