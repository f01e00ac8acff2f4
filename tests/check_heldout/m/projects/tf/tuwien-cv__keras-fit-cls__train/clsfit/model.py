import keras
from keras import layers


def _block(x, filters, stride):
    shortcut = x
    x = layers.Conv2D(filters, 3, stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("swish")(x)
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, stride, use_bias=False)(shortcut)
        shortcut = layers.BatchNormalization()(shortcut)
    return layers.Activation("swish")(layers.Add()([x, shortcut]))


def build_resnet(num_classes, size=160, widths=(64, 128, 256, 512), weight_decay=5e-5):
    inp = keras.Input((size, size, 3))
    x = layers.Conv2D(widths[0], 7, 2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("swish")(x)
    x = layers.MaxPooling2D(3, 2, padding="same")(x)
    for i, w in enumerate(widths):
        x = _block(x, w, 1 if i == 0 else 2)
        x = _block(x, w, 1)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    out = layers.Dense(num_classes, kernel_regularizer=keras.regularizers.l2(weight_decay))(x)
    return keras.Model(inp, out, name="resnet18ish")
