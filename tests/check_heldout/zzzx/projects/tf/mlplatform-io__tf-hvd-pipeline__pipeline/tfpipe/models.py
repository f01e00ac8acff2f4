import keras
from keras import layers

_REGISTRY = {}


def register(name):
    def deco(fn):
        _REGISTRY[name] = fn
        return fn
    return deco


@register("wide_deep")
def wide_deep(n_features, hidden=(128, 64), dropout=0.0):
    inp = keras.Input(shape=(n_features,))
    deep = inp
    for h in hidden:
        deep = layers.Dense(h, activation="relu")(deep)
        deep = layers.Dropout(dropout)(deep)
    wide = layers.Dense(1)(inp)
    out = layers.Add()([wide, layers.Dense(1)(deep)])
    return keras.Model(inp, out)


@register("logreg")
def logreg(n_features, **_):
    return keras.Sequential([keras.Input(shape=(n_features,)), layers.Dense(1)])


def build(spec, n_features):
    spec = dict(spec)
    return _REGISTRY[spec.pop("name")](n_features, **spec)
