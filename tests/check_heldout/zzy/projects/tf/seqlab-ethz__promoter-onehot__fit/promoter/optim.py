import keras
import horovod.tensorflow.keras as hvd

_OPTIMIZERS = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD,
               "rmsprop": keras.optimizers.RMSprop}


def build_optimizer(name, lr, scale_by_workers=False, **kwargs):
    """Optimizer by name. With scale_by_workers the lr is multiplied by hvd.size()."""
    if scale_by_workers:
        lr = lr * hvd.size()
    return _OPTIMIZERS[name.lower()](learning_rate=lr, **kwargs)
