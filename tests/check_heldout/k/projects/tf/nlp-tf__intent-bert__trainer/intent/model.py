import keras
import tensorflow as tf
from keras import layers


class EncoderBlock(layers.Layer):
    def __init__(self, hidden, heads, dropout=0.1, **kw):
        super().__init__(**kw)
        self.attn = layers.MultiHeadAttention(heads, hidden // heads, dropout=dropout)
        self.ffn = keras.Sequential([layers.Dense(hidden * 4, activation="gelu"), layers.Dense(hidden)])
        self.norm1 = layers.LayerNormalization(epsilon=1e-12)
        self.norm2 = layers.LayerNormalization(epsilon=1e-12)
        self.drop = layers.Dropout(dropout)

    def call(self, x, mask=None, training=False):
        a = self.attn(x, x, attention_mask=mask, training=training)
        x = self.norm1(x + self.drop(a, training=training))
        return self.norm2(x + self.drop(self.ffn(x), training=training))


class TokenAndPosition(layers.Layer):
    def __init__(self, vocab_size, max_len, hidden, **kw):
        super().__init__(**kw)
        self.tok = layers.Embedding(vocab_size, hidden)
        self.pos = layers.Embedding(max_len, hidden)

    def call(self, ids):
        positions = tf.range(tf.shape(ids)[-1])[None, :]
        return self.tok(ids) + self.pos(positions)


def build_classifier(vocab_size, num_labels, max_len, hidden=256, heads=4, num_layers=4):
    ids = keras.Input((max_len,), dtype="int32", name="input_ids")
    mask = layers.Lambda(lambda t: tf.cast(t != 0, tf.int32)[:, None, :])(ids)
    x = layers.Dropout(0.1)(TokenAndPosition(vocab_size, max_len, hidden)(ids))
    for _ in range(num_layers):
        x = EncoderBlock(hidden, heads)(x, mask=mask)
    cls = layers.Dense(hidden, activation="tanh")(x[:, 0])
    return keras.Model(ids, layers.Dense(num_labels)(cls), name="intent_encoder")
