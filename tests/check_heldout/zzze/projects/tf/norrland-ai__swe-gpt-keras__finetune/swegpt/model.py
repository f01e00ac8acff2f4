import keras
from keras import layers


class DecoderBlock(layers.Layer):
    def __init__(self, width, heads, **kw):
        super().__init__(**kw)
        self.ln1, self.ln2 = layers.LayerNormalization(), layers.LayerNormalization()
        self.attn = layers.MultiHeadAttention(heads, width // heads)
        self.ff = keras.Sequential([layers.Dense(4 * width, activation="gelu"), layers.Dense(width)])

    def call(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, use_causal_mask=True)
        return x + self.ff(self.ln2(x))


def swe_gpt(cfg):
    inp = keras.Input((cfg.seq_len,), dtype="int32")
    x = layers.Embedding(cfg.vocab, cfg.width)(inp)
    for i in range(cfg.depth):
        x = DecoderBlock(cfg.width, cfg.width // 64, name=f"block_{i}")(x)
    out = layers.Dense(cfg.vocab, name="lm_head")(layers.LayerNormalization()(x))
    return keras.Model(inp, out, name="swe_gpt")
