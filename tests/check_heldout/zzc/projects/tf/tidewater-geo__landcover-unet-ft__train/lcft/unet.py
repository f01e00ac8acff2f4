import keras
from keras import layers

SKIPS = ("block_1_expand_relu", "block_3_expand_relu", "block_6_expand_relu",
         "block_13_expand_relu", "block_16_project")


def build_unet(num_classes, tile, encoder_weights):
    encoder = keras.applications.MobileNetV2(input_shape=(tile, tile, 3), include_top=False,
                                             weights=None)
    encoder.load_weights(encoder_weights)
    down = keras.Model(encoder.input, [encoder.get_layer(n).output for n in SKIPS], name="encoder")

    inputs = keras.Input((tile, tile, 3))
    skips = down(inputs)
    x = skips[-1]
    for skip, filters in zip(reversed(skips[:-1]), (256, 128, 64, 32)):
        x = layers.Conv2DTranspose(filters, 3, strides=2, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Concatenate()([x, skip])
    outputs = layers.Conv2DTranspose(num_classes, 3, strides=2, padding="same")(x)
    return keras.Model(inputs, outputs, name="landcover_unet")


def set_encoder_trainable(model, trainable):
    model.get_layer("encoder").trainable = trainable
