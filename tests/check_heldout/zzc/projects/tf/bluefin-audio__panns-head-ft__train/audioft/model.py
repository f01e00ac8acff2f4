import keras
from keras import layers


def conv_block(x, filters, name):
    for i in range(2):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False, name=f"{name}_conv{i}")(x)
        x = layers.BatchNormalization(name=f"{name}_bn{i}")(x)
        x = layers.ReLU()(x)
    return layers.AveragePooling2D(2, name=f"{name}_pool")(x)


def build_model(num_classes, input_shape, backbone_weights):
    inp = keras.Input(input_shape)
    x = layers.Reshape((*input_shape[:2], 1))(inp) if len(input_shape) == 2 else inp
    for i, f in enumerate((64, 128, 256, 512), start=1):
        x = conv_block(x, f, f"conv_block{i}")
    backbone = keras.Model(inp, x, name="cnn10")
    backbone.load_weights(backbone_weights)
    backbone.trainable = False
    h = layers.GlobalAveragePooling2D()(backbone.output)
    h = layers.Dropout(0.5)(h)
    h = layers.Dense(256, activation="relu", name="head_fc")(h)
    out = layers.Dense(num_classes, name="head_out")(h)
    return keras.Model(backbone.input, out, name="cnn10_esc50")


def set_trainable_blocks(model, prefixes):
    for layer in model.layers:
        if layer.name.startswith(prefixes) and not isinstance(layer, layers.BatchNormalization):
            layer.trainable = True
