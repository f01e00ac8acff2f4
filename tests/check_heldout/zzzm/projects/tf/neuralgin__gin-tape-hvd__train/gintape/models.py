import tensorflow as tf

from gintape.registry import configurable, get_configurable


@configurable
def convnet(widths=(32, 64), num_classes=10):
    layers = [tf.keras.Input((28, 28, 1))]
    for w in widths:
        layers += [tf.keras.layers.Conv2D(w, 3, padding="same", activation="relu"),
                   tf.keras.layers.MaxPooling2D()]
    layers += [tf.keras.layers.Flatten(), tf.keras.layers.Dense(num_classes)]
    return tf.keras.Sequential(layers)


@configurable
def mlp(hidden=256, num_classes=10):
    return tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Flatten(),
                                tf.keras.layers.Dense(hidden, activation="relu"),
                                tf.keras.layers.Dense(num_classes)])


@configurable
def build_model(name="convnet"):
    return get_configurable(name)()
