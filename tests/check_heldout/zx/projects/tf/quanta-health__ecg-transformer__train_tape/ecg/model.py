from tensorflow import keras
from tensorflow.keras import layers


def _block(x, d_model, n_heads):
    h = layers.LayerNormalization()(x)
    h = layers.MultiHeadAttention(n_heads, d_model // n_heads)(h, h)
    x = x + h
    h = layers.LayerNormalization()(x)
    h = layers.Dense(4 * d_model, activation="gelu")(h)
    return x + layers.Dense(d_model)(h)


def build_transformer(cfg):
    inp = keras.Input((cfg.seq_len, cfg.n_leads))
    x = layers.Conv1D(cfg.d_model, 25, strides=10, padding="same")(inp)
    for _ in range(cfg.n_layers):
        x = _block(x, cfg.d_model, cfg.n_heads)
    x = layers.GlobalAveragePooling1D()(x)
    out = layers.Dense(cfg.n_classes, dtype="float32")(x)
    return keras.Model(inp, out, name="ecg_transformer")
