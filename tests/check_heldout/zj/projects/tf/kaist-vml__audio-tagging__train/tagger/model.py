import keras
from keras import layers


def crnn(frames, n_mels, num_tags):
    inp = keras.Input((frames, n_mels))
    x = layers.Reshape((frames, n_mels, 1))(inp)
    for f in (32, 64):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D((1, 2))(x)
    x = layers.Reshape((frames, -1))(x)
    x = layers.Bidirectional(layers.GRU(64, return_sequences=True))(x)
    x = layers.GlobalMaxPooling1D()(x)
    return keras.Model(inp, layers.Dense(num_tags)(x), name="crnn")
