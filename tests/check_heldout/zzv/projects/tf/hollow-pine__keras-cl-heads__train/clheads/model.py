import keras
from keras import layers


def backbone(input_shape):
    inp = keras.Input(input_shape)
    x = inp
    for f in (32, 64, 128):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, x, name="backbone")


def with_head(trunk, n_out, task_id):
    """A model for one task: the shared trunk plus a new dense head."""
    inp = keras.Input(trunk.input_shape[1:])
    out = layers.Dense(n_out, name=f"head_{task_id}")(trunk(inp))
    return keras.Model(inp, out, name=f"task_{task_id}")
