import keras


def make_model(hidden=(128, 64), dropout=0.2):
    model = keras.Sequential([keras.Input((32,)), keras.layers.Normalization()])
    for h in hidden:
        model.add(keras.layers.Dense(h, activation="relu"))
        model.add(keras.layers.Dropout(dropout))
    model.add(keras.layers.Dense(1, activation="sigmoid"))
    return model


def make_optimizer(name, lr):
    name = name.lower()
    if name == "adam":
        return keras.optimizers.Adam(learning_rate=lr)
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
    if name == "rmsprop":
        return keras.optimizers.RMSprop(learning_rate=lr)
    raise ValueError(f"unknown optimizer {name}")
