import keras
from keras import layers


def build_model(num_classes=5):
    inp = keras.Input((1024, 1))
    x = inp
    for f in (32, 64, 128):
        x = layers.Conv1D(f, 7, padding="same", activation="relu")(x)
        x = layers.MaxPooling1D(4)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(64, activation="relu")(x)
    return keras.Model(inp, layers.Dense(num_classes)(x), name="sigcnn")
