import keras
from keras import layers


def _block(x, ch, stride):
    x = layers.Conv2D(ch, 3, strides=stride, padding="same")(x)
    x = layers.LayerNormalization()(x)
    return layers.Activation("gelu")(x)


def build_mae(input_shape, width=48):
    inp = keras.Input(input_shape)
    x = _block(inp, width, 1)
    x = _block(x, width * 2, 2)
    x = _block(x, width * 4, 2)
    x = _block(x, width * 4, 1)
    x = layers.Conv2DTranspose(width * 2, 3, strides=2, padding="same", activation="gelu")(x)
    x = layers.Conv2DTranspose(width, 3, strides=2, padding="same", activation="gelu")(x)
    out = layers.Conv2D(input_shape[-1], 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="mae_lite")


def extract_encoder(mae, last_encoder_layer=None):
    """Cut the MAE after its last strided/plain conv block (the part linear probes use)."""
    if last_encoder_layer is None:
        acts = [l for l in mae.layers if isinstance(l, layers.Activation)]
        last_encoder_layer = acts[-1].name
    out = mae.get_layer(last_encoder_layer).output
    pooled = layers.GlobalAveragePooling2D()(out)
    return keras.Model(mae.input, pooled, name="mae_encoder")
