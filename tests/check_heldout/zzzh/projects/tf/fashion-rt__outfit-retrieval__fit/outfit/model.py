import keras
from keras import layers, ops


class Temperature(layers.Layer):
    def build(self, _):
        self.t = self.add_weight(shape=(), initializer=keras.initializers.Constant(0.07), name="t")

    def call(self, sims):
        return sims / ops.maximum(self.t, 0.01)


def two_tower(img_dim, text_vectorizer, dim=128):
    img = keras.Input((img_dim,), name="photo")
    txt = keras.Input((), dtype="string", name="description")
    a = layers.UnitNormalization()(layers.Dense(dim)(layers.Dense(256, activation="relu")(img)))
    tok = text_vectorizer(txt)
    b = layers.GlobalAveragePooling1D()(layers.Embedding(text_vectorizer.vocabulary_size(), 128)(tok))
    b = layers.UnitNormalization()(layers.Dense(dim)(b))
    sims = layers.Lambda(lambda t: ops.matmul(t[0], ops.transpose(t[1])))([a, b])
    return keras.Model([img, txt], Temperature()(sims))
