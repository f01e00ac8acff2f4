import numpy as np
import keras
from keras import layers, ops


class ScaledSimilarity(layers.Layer):
    """Cosine similarity matrix times a learnable inverse temperature (CLIP init 1/0.07)."""

    def build(self, input_shape):
        self.log_scale = self.add_weight(name="log_scale", shape=(),
                                         initializer=keras.initializers.Constant(np.log(1 / 0.07)))

    def call(self, inputs):
        img, txt = inputs
        img = img / ops.norm(img, axis=-1, keepdims=True)
        txt = txt / ops.norm(txt, axis=-1, keepdims=True)
        return ops.exp(ops.minimum(self.log_scale, 4.6052)) * ops.matmul(img, ops.transpose(txt))


def build_towers(img_dim, vectorizer, embed_dim):
    img_in = keras.Input((img_dim,), name="image")
    x = layers.Dense(512, activation="gelu")(img_in)
    image_tower = keras.Model(img_in, layers.Dense(embed_dim)(x), name="image_tower")

    txt_in = keras.Input((), dtype="string", name="caption")
    t = vectorizer(txt_in)
    t = layers.Embedding(vectorizer.vocabulary_size(), 256, mask_zero=True)(t)
    t = layers.GlobalAveragePooling1D()(t)
    text_tower = keras.Model(txt_in, layers.Dense(embed_dim)(t), name="text_tower")

    im = keras.Input((img_dim,), name="image_in")
    tx = keras.Input((), dtype="string", name="caption_in")
    logits = ScaledSimilarity(name="similarity")([image_tower(im), text_tower(tx)])
    return keras.Model([im, tx], logits, name="clip"), image_tower, text_tower
