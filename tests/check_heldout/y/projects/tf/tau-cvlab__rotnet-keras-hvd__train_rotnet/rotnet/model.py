import keras
from keras import layers


def conv_block(x, ch):
    for _ in range(2):
        x = layers.Conv2D(ch, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    return layers.MaxPooling2D()(x)


def build_rotnet(input_shape, width=64):
    inp = keras.Input(input_shape)
    x = conv_block(inp, width)
    x = conv_block(x, width * 2)
    x = conv_block(x, width * 4)
    x = layers.GlobalAveragePooling2D(name="features")(x)
    x = layers.Dropout(0.3)(x)
    out = layers.Dense(4, activation="softmax", name="rotation")(x)
    return keras.Model(inp, out, name="rotnet")


def feature_extractor(rotnet):
    """The trunk up to the pooled features, for linear probes on downstream labels."""
    return keras.Model(rotnet.input, rotnet.get_layer("features").output, name="rotnet_features")
