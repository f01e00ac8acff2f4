import keras
from keras import layers


def _block(x, filters):
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def build_model(input_shape=(256, 256, 3), width=32):
    inp = keras.Input(input_shape)
    e1 = _block(_block(inp, width), width)
    e2 = _block(layers.MaxPooling2D()(e1), width * 2)
    e3 = _block(layers.MaxPooling2D()(e2), width * 4)
    d2 = _block(layers.Concatenate()([layers.UpSampling2D()(e3), e2]), width * 2)
    d1 = _block(layers.Concatenate()([layers.UpSampling2D()(d2), e1]), width)
    mask = layers.Conv2D(2, 1, name="mask", dtype="float32")(d1)
    edge = layers.Conv2D(1, 1, name="edge", dtype="float32")(d1)
    return keras.Model(inp, {"mask": mask, "edge": layers.Reshape(input_shape[:2], dtype="float32")(edge)})
