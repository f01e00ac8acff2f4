import keras
from keras import layers


def conv_block(x, filters, dropout):
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.MaxPooling2D()(x)
    return layers.SpatialDropout2D(dropout / 2)(x)


def build_model(cfg):
    inputs = keras.Input(shape=(cfg.image_size, cfg.image_size, 1), name="image")
    x = inputs
    for width in cfg.widths:
        x = conv_block(x, width, cfg.dropout)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(cfg.dropout)(x)
    outputs = layers.Dense(cfg.num_classes, activation="softmax", name="probs")(x)
    return keras.Model(inputs, outputs, name="plankton_cnn")
