import keras
from keras import layers


def ds_cnn(num_labels, frames=98, n_mels=40, width=172):
    inp = keras.Input((frames, n_mels))
    x = layers.Reshape((frames, n_mels, 1))(inp)
    x = layers.Conv2D(width, (10, 4), strides=(2, 2), padding="same", use_bias=False)(x)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    for _ in range(4):
        x = layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = layers.ReLU()(layers.BatchNormalization()(x))
        x = layers.Conv2D(width, 1, use_bias=False)(x)
        x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_labels)(layers.Dropout(0.2)(x)), name="ds_cnn")
