import keras

_REGISTRY = {
    "sgd": lambda lr: keras.optimizers.SGD(learning_rate=lr, momentum=0.9),
    "adam": lambda lr: keras.optimizers.Adam(learning_rate=lr),
    "adamw": lambda lr: keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-4),
    "lamb": lambda lr: keras.optimizers.Lamb(learning_rate=lr),
}


def names():
    return sorted(_REGISTRY)


def get(name, lr):
    try:
        return _REGISTRY[name](lr)
    except KeyError:
        raise SystemExit(f"unknown optimizer {name!r}; choose from {names()}")
