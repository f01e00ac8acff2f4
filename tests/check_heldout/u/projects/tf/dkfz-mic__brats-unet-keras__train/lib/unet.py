import keras
from keras import layers


def conv_block(x, filters, dropout=0.0):
    for _ in range(2):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False, kernel_initializer="he_normal")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
    if dropout:
        x = layers.SpatialDropout2D(dropout)(x)
    return x


def build_unet(input_shape=(160, 160, 4), num_classes=4, base_filters=32, depth=4, dropout=0.1):
    """2D U-Net on the four BraTS modalities (T1, T1ce, T2, FLAIR) stacked as channels."""
    inputs = keras.Input(shape=input_shape)
    x, skips = inputs, []
    for d in range(depth):
        x = conv_block(x, base_filters * 2 ** d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = conv_block(x, base_filters * 2 ** depth, dropout)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base_filters * 2 ** d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = conv_block(x, base_filters * 2 ** d)
    outputs = layers.Conv2D(num_classes, 1, activation="softmax", dtype="float32")(x)
    return keras.Model(inputs, outputs, name=f"unet{depth}_{base_filters}")
