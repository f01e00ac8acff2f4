import keras
from keras import layers


def small_resnet_encoder(input_shape=(32, 32, 3), width=64):
    inp = keras.Input(input_shape)
    x = inp
    for w in (width, 2 * width, 4 * width, 8 * width):
        x = layers.Conv2D(w, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.MaxPooling2D()(x) if w != width else x
    return keras.Model(inp, layers.GlobalAveragePooling2D()(x), name="encoder")


def build_probe(cfg):
    encoder = small_resnet_encoder((*cfg.image_size, 3))
    encoder.load_weights(cfg.encoder_weights)
    encoder.trainable = False
    inp = keras.Input((*cfg.image_size, 3))
    feats = encoder(inp, training=False)
    out = layers.Dense(cfg.num_classes, kernel_initializer="zeros", name="linear")(feats)
    return keras.Model(inp, out, name="linear_probe")
