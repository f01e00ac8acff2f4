import keras
from keras import layers


def res_block(x, filters, kernel, stride, dropout):
    shortcut = x
    y = layers.Conv1D(filters, kernel, strides=stride, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.Dropout(dropout)(y)
    y = layers.Conv1D(filters, kernel, padding="same", use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv1D(filters, 1, strides=stride, padding="same", use_bias=False)(shortcut)
        shortcut = layers.BatchNormalization()(shortcut)
    return layers.ReLU()(layers.Add()([y, shortcut]))


def build_resnet1d(n_samples=5000, n_leads=12, n_classes=5, filters=64, blocks=6, dropout=0.2):
    inp = keras.Input((n_samples, n_leads))
    x = layers.Conv1D(filters, 15, strides=2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    for b in range(blocks):
        f = filters * (2 ** (b // 2))
        x = res_block(x, f, 9, 2 if b % 2 == 0 else 1, dropout)
    x = layers.GlobalAveragePooling1D()(x)
    out = layers.Dense(n_classes, activation="sigmoid")(x)
    return keras.Model(inp, out, name="resnet1d_ecg")
