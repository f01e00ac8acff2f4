import keras

_OPTIMIZERS = {
    "adam": keras.optimizers.Adam,
    "sgd": keras.optimizers.SGD,
    "adagrad": keras.optimizers.Adagrad,
}


def build_optimizer(spec):
    spec = dict(spec)
    cls = _OPTIMIZERS[spec.pop("name")]
    lr = spec.pop("lr")
    return cls(learning_rate=lr, **spec)
