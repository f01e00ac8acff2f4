import keras
from keras import layers


def ecg_multitask(length=1000, leads=12, n_classes=5, width=64):
    """1-D ResNet encoder; multi-label classifier head + signal reconstruction decoder (auxiliary)."""
    inp = keras.Input((length, leads))
    x = layers.Conv1D(width, 15, strides=2, padding="same", activation="relu")(inp)
    for i in range(3):
        y = layers.Conv1D(width, 9, padding="same", activation="relu")(x)
        y = layers.Conv1D(width, 9, padding="same")(y)
        x = layers.Activation("relu")(layers.Add()([x, y]))
        x = layers.MaxPooling1D(2)(x) if i < 2 else x
    z = layers.GlobalAveragePooling1D()(x)
    logits = layers.Dense(n_classes, name="diag")(z)
    d = layers.UpSampling1D(8)(x)
    recon = layers.Conv1D(leads, 9, padding="same", name="recon")(d)
    return keras.Model(inp, {"diag": logits, "recon": recon})
