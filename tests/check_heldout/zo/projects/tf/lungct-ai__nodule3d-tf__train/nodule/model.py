import keras
from keras import layers


def conv_block(x, filters):
    x = layers.Conv3D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv3D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def build_nodule_net(cube=48, widths=(16, 32, 64, 128), dropout=0.3):
    inp = keras.Input((cube, cube, cube, 1))
    x = inp
    for w in widths:
        x = conv_block(x, w)
        x = layers.MaxPool3D(2)(x)
    x = layers.GlobalAveragePooling3D()(x)
    x = layers.Dropout(dropout)(x)
    out = layers.Dense(1, activation="sigmoid", name="malignancy")(x)
    return keras.Model(inp, out, name="nodule3d")
