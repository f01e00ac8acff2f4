import keras
import tensorflow as tf
from keras import layers


class GLUBlock(layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.fc = layers.Dense(2 * units, use_bias=False)
        self.bn = layers.BatchNormalization(momentum=0.98)
        self.units = units

    def call(self, x, training=None):
        h = self.bn(self.fc(x), training=training)
        return h[:, :self.units] * tf.sigmoid(h[:, self.units:])


class TabNetEncoder(keras.Model):
    def __init__(self, n_features, feature_dim=32, output_dim=16, n_steps=3, relaxation=1.5, **kw):
        super().__init__(**kw)
        self.n_steps, self.output_dim, self.relaxation = n_steps, output_dim, relaxation
        self.bn = layers.BatchNormalization()
        self.shared = [GLUBlock(feature_dim + output_dim), GLUBlock(feature_dim + output_dim)]
        self.step_ft = [GLUBlock(feature_dim + output_dim) for _ in range(n_steps)]
        self.attentive = [layers.Dense(n_features, use_bias=False) for _ in range(n_steps)]
        self.head = layers.Dense(1)

    def call(self, x, training=None):
        x = self.bn(x, training=training)
        prior = tf.ones_like(x)
        h = self.shared[1](self.shared[0](x, training=training), training=training)
        out = 0.0
        self.last_masks = []
        for i in range(self.n_steps):
            mask = tf.nn.softmax(self.attentive[i](h[:, self.output_dim:]) * prior)
            prior = prior * (self.relaxation - mask)
            h = self.step_ft[i](x * mask, training=training)
            out += tf.nn.relu(h[:, :self.output_dim])
            self.last_masks.append(mask)
        return self.head(out)


def build(n_numeric, vocab, cfg):
    num_in = keras.Input((n_numeric,), name="num")
    cat_in = keras.Input((len(vocab),), dtype="int32", name="cat")
    embs = [layers.Flatten()(layers.Embedding(v, cfg["emb_dim"])(cat_in[:, i:i + 1]))
            for i, v in enumerate(vocab.values())]
    x = layers.Concatenate()([num_in] + embs)
    enc = TabNetEncoder(n_numeric + cfg["emb_dim"] * len(vocab), cfg["feature_dim"], cfg["output_dim"],
                        cfg["n_steps"], cfg["relaxation"], name="tabnet")
    return keras.Model({"num": num_in, "cat": cat_in}, enc(x)), enc
