import keras
from keras import layers


def fraud_mlp(n_features, hidden=(256, 128, 64), dropout=0.2):
    inp = keras.Input((n_features,))
    x = layers.BatchNormalization()(inp)
    for units in hidden:
        x = layers.Dense(units, kernel_regularizer=keras.regularizers.l2(1e-5))(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.Dropout(dropout)(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="fraud_mlp")
