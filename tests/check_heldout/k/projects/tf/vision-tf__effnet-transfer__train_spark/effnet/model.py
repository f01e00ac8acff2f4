import keras
from keras import layers

from .data import IMAGE_SIZE


def build(num_classes, weights_path=None, dropout=0.3):
    base = keras.applications.EfficientNetB0(include_top=False, weights=None,
                                             input_shape=(IMAGE_SIZE, IMAGE_SIZE, 3))
    if weights_path:
        base.load_weights(weights_path)
    inp = keras.Input((IMAGE_SIZE, IMAGE_SIZE, 3))
    x = base(inp, training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(dropout)(x)
    model = keras.Model(inp, layers.Dense(num_classes, activation="softmax")(x))
    return model, base
