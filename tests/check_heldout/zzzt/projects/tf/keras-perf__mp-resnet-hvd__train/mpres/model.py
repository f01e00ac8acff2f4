import keras
from keras import layers


def _block(x, f, stride):
    y = layers.Conv2D(f, 3, stride, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.Conv2D(f, 3, 1, padding="same", use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    if stride != 1 or x.shape[-1] != f:
        x = layers.Conv2D(f, 1, stride, use_bias=False)(x)
    return layers.ReLU()(layers.Add()([x, y]))


def small_resnet(image_size, num_classes):
    inp = keras.Input((image_size, image_size, 3))
    x = layers.Conv2D(32, 3, padding="same")(inp)
    for f, s in ((32, 1), (64, 2), (128, 2)):
        x = _block(x, f, s)
    x = layers.GlobalAveragePooling2D()(x)
    # keep the softmax in float32 under mixed_float16
    out = layers.Dense(num_classes, activation="softmax", dtype="float32")(x)
    return keras.Model(inp, out)
