"""Optimizer factory shared by train.py, the hyper-parameter sweep and the nightly retrain job."""
import keras
import horovod.keras as hvd

_OPTIMIZERS = {
    "adam": lambda lr: keras.optimizers.Adam(learning_rate=lr),
    "nadam": lambda lr: keras.optimizers.Nadam(learning_rate=lr),
    "sgd": lambda lr: keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True),
}


def make_optimizer(cfg, lr):
    """Build the optimizer named in cfg.

    The sweep runs many single-process trials, so Horovod wrapping is opt-in:
    set "hvd": true in the config for multi-worker runs.
    """
    opt = _OPTIMIZERS[cfg["optimizer"]](lr)
    if cfg.get("hvd", False):
        opt = hvd.DistributedOptimizer(opt)
    return opt
