import keras
from keras import layers

_BUILDERS = {}


def register(name):
    def deco(fn):
        _BUILDERS[name] = fn
        return fn
    return deco


@register("tcn_small")
def tcn_small(lookback, horizon):
    inp = keras.Input((lookback, 1))
    x = inp
    for rate in (1, 2, 4, 8):
        x = layers.Conv1D(32, 3, padding="causal", dilation_rate=rate, activation="relu")(x)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(inp, layers.Dense(horizon)(x), name="tcn_small")


@register("mlp")
def mlp(lookback, horizon):
    return keras.Sequential([keras.Input((lookback, 1)), layers.Flatten(), layers.Dense(128, activation="relu"),
                             layers.Dense(horizon)], name="mlp")


def build_model(name, **kw):
    return _BUILDERS[name](**kw)
