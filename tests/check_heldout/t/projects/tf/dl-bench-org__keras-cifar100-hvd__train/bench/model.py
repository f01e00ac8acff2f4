import keras
from keras import layers, regularizers


def _block(x, filters, stride, wd):
    reg = regularizers.l2(wd)
    o = layers.BatchNormalization()(x)
    o = layers.ReLU()(o)
    sc = x if (stride == 1 and x.shape[-1] == filters) else layers.Conv2D(filters, 1, stride, use_bias=False,
                                                                          kernel_regularizer=reg)(o)
    o = layers.Conv2D(filters, 3, stride, padding="same", use_bias=False, kernel_regularizer=reg)(o)
    o = layers.BatchNormalization()(o)
    o = layers.ReLU()(o)
    o = layers.Conv2D(filters, 3, 1, padding="same", use_bias=False, kernel_regularizer=reg)(o)
    return layers.Add()([o, sc])


def wide_resnet(num_classes, depth=16, width=4, wd=5e-4):
    n = (depth - 4) // 6
    inp = keras.Input((32, 32, 3))
    x = layers.Conv2D(16, 3, padding="same", use_bias=False)(inp)
    for i, f in enumerate((16 * width, 32 * width, 64 * width)):
        for j in range(n):
            x = _block(x, f, 2 if (j == 0 and i > 0) else 1, wd)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax")(x), name=f"wrn{depth}_{width}")
