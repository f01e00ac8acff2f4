import keras
from keras import layers

from .layers import NumericalEmbedding, CLSToken, transformer_block


def build_ft_transformer(n_num, vocab_sizes, d_token=64, depth=3, heads=8, attn_dropout=0.1, ff_dropout=0.1):
    x_num = keras.Input((n_num,), name="num")
    x_cat = keras.Input((len(vocab_sizes),), dtype="int32", name="cat")
    toks = [NumericalEmbedding(d_token)(x_num)]
    for i, v in enumerate(vocab_sizes):
        col = layers.Lambda(lambda t, i=i: t[:, i:i + 1])(x_cat)
        toks.append(layers.Embedding(v, d_token)(col))
    h = CLSToken()(layers.Concatenate(axis=1)(toks))
    for _ in range(depth):
        h = transformer_block(h, d_token, heads, attn_dropout, ff_dropout)
    h = layers.LayerNormalization()(h[:, 0])
    out = layers.Dense(1)(layers.ReLU()(h))
    return keras.Model({"num": x_num, "cat": x_cat}, out, name="ft_transformer")
