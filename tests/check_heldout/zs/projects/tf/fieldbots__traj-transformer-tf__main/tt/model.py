import keras
from keras import layers


class TrajectoryTransformer(keras.Model):
    def __init__(self, adim, k, dim=128, depth=3, heads=4, **kw):
        super().__init__(**kw)
        self.s_proj, self.a_proj = layers.Dense(dim), layers.Dense(dim)
        self.pos = layers.Embedding(k, dim)
        self.attn = [layers.MultiHeadAttention(heads, dim // heads) for _ in range(depth)]
        self.ffn = [keras.Sequential([layers.Dense(4 * dim, activation="gelu"), layers.Dense(dim)])
                    for _ in range(depth)]
        self.norms = [(layers.LayerNormalization(), layers.LayerNormalization()) for _ in range(depth)]
        self.head = layers.Dense(adim, activation="tanh")

    def call(self, inputs, training=False):
        s, prev = inputs
        k = keras.ops.shape(s)[1]
        x = self.s_proj(s) + self.a_proj(prev) + self.pos(keras.ops.arange(k))
        for attn, ffn, (n1, n2) in zip(self.attn, self.ffn, self.norms):
            h = n1(x)
            x = x + attn(h, h, use_causal_mask=True, training=training)
            x = x + ffn(n2(x), training=training)
        return self.head(x)
