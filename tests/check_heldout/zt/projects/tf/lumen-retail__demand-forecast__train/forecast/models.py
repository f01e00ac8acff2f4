import keras

MODEL_BUILDERS = {}


def builder(name):
    def deco(fn):
        MODEL_BUILDERS[name] = fn
        return fn
    return deco


@builder("mlp")
def mlp(window, horizon, units):
    inputs = keras.Input((window,))
    h = inputs
    for u in units:
        h = keras.layers.Dense(u, activation="relu")(h)
    return keras.Model(inputs, keras.layers.Dense(horizon)(h))


@builder("conv")
def conv(window, horizon, units):
    inputs = keras.Input((window,))
    h = keras.layers.Reshape((window, 1))(inputs)
    h = keras.layers.Conv1D(units[0], 5, activation="relu")(h)
    h = keras.layers.GlobalAveragePooling1D()(h)
    return keras.Model(inputs, keras.layers.Dense(horizon)(h))


def build(cfg):
    m = cfg["model"]
    return MODEL_BUILDERS[m["kind"]](cfg["data"]["window"], cfg["data"]["horizon"], m["units"])
