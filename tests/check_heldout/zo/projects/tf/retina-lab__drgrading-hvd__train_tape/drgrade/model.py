import keras
from keras import layers


def sep_block(x, filters, stride):
    x = layers.SeparableConv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("swish")(x)


def build_grader(size=384, num_grades=5, width=32):
    inp = keras.Input((size, size, 3))
    x = layers.Conv2D(width, 3, strides=2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("swish")(x)
    for i, mult in enumerate((1, 2, 4, 4, 8, 8)):
        x = sep_block(x, width * mult, 2 if i % 2 == 0 else 1)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inp, layers.Dense(num_grades)(x), name="dr_grader")
