import horovod.tensorflow.keras as hvd
from tensorflow import keras


def _block(x, filters):
    x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    return keras.layers.BatchNormalization()(x)


def build_unet(n_channels, base=32, depth=3):
    inp = keras.Input((None, None, n_channels))
    skips, x = [], inp
    for d in range(depth):
        x = _block(x, base * 2 ** d)
        skips.append(x)
        x = keras.layers.MaxPooling2D()(x)
    x = _block(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = keras.layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = keras.layers.Concatenate()([x, skips[d]])
        x = _block(x, base * 2 ** d)
    out = keras.layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="cloud_unet")


def compile_model(model, lr, distributed=False):
    """Adam + binary cross-entropy. Set distributed=True to wrap the optimizer for Horovod (the notebooks call this
    on one GPU)."""
    opt = keras.optimizers.Adam(learning_rate=lr)
    if distributed:
        opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="binary_crossentropy", metrics=["accuracy"])
    return model
