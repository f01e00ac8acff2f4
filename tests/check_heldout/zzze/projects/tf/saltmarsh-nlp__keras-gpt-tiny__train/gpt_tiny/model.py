import keras
from keras import layers


def block(x, d_model, n_heads):
    h = layers.LayerNormalization(epsilon=1e-5)(x)
    h = layers.MultiHeadAttention(n_heads, d_model // n_heads)(h, h, use_causal_mask=True)
    x = x + h
    h = layers.LayerNormalization(epsilon=1e-5)(x)
    h = layers.Dense(4 * d_model, activation="gelu")(h)
    return x + layers.Dense(d_model)(h)


def build_gpt(vocab, seq_len, d_model, n_heads, n_layers):
    tokens = keras.Input((seq_len,), dtype="int32")
    x = layers.Embedding(vocab, d_model)(tokens)
    pos = layers.Embedding(seq_len, d_model)(keras.ops.arange(seq_len)[None, :])
    x = x + pos
    for _ in range(n_layers):
        x = block(x, d_model, n_heads)
    logits = layers.Dense(vocab)(layers.LayerNormalization(epsilon=1e-5)(x))
    return keras.Model(tokens, logits, name="gpt_tiny")
