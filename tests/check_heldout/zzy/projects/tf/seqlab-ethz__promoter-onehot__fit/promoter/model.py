import keras
from keras import layers


def deepbind_like(length, filters=(64, 128), kernel=12, dropout=0.3):
    inp = keras.Input((length, 4), name="dna")
    x = inp
    for f in filters:
        x = layers.Conv1D(f, kernel, padding="same", activation="relu")(x)
        x = layers.MaxPooling1D(4)(x)
        x = layers.Dropout(dropout)(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dense(64, activation="relu")(x)
    out = layers.Dense(1, activation="sigmoid", name="p_promoter")(x)
    return keras.Model(inp, out)
