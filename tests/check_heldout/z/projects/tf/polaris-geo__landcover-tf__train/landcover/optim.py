import keras
import horovod.tensorflow.keras as hvd


def scaled_lr(base_lr, strategy=None):
    """Linear scaling rule: lr grows with the number of replicas that share a step."""
    replicas = strategy.num_replicas_in_sync if strategy is not None else 1
    return base_lr * replicas


def make_optimizer(base_lr, strategy=None):
    opt = keras.optimizers.Adam(learning_rate=scaled_lr(base_lr, strategy))
    return hvd.DistributedOptimizer(opt)
