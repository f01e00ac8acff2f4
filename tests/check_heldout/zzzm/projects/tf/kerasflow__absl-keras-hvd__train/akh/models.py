"""Registries: models and optimizers are chosen by name from flags."""
import tensorflow as tf

_MODELS = {}
_OPTIMIZERS = {
    "adam": lambda lr: tf.keras.optimizers.Adam(learning_rate=lr),
    "sgd": lambda lr: tf.keras.optimizers.SGD(learning_rate=lr, momentum=0.9),
    "rmsprop": lambda lr: tf.keras.optimizers.RMSprop(learning_rate=lr),
}


def register(fn):
    _MODELS[fn.__name__] = fn
    return fn


def get(name):
    if name not in _MODELS:
        raise ValueError("Unknown model %r (known: %s)" % (name, ", ".join(sorted(_MODELS))))
    return _MODELS[name]


def get_optimizer(name, lr):
    return _OPTIMIZERS[name](lr)


@register
def small_cnn(num_classes=10):
    return tf.keras.Sequential([
        tf.keras.Input((32, 32, 3)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(64, 3, activation="relu"),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(num_classes),
    ])


@register
def mlp(num_classes=10):
    return tf.keras.Sequential([
        tf.keras.Input((32, 32, 3)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(256, activation="relu"),
        tf.keras.layers.Dense(num_classes),
    ])
