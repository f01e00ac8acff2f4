import keras
import tensorflow as tf


class GiniCoefficient(keras.metrics.AUC):
    """normalised gini = 2*AUC - 1 (what the business reports)"""

    def __init__(self, name="gini", **kw):
        super().__init__(name=name, **kw)

    def result(self):
        return 2.0 * super().result() - 1.0


class TabularDNN(keras.Model):
    def __init__(self, hp, **kw):
        super().__init__(**kw)
        self.embs = [keras.layers.Embedding(hp.cat_card, hp.emb_dim) for _ in range(hp.n_cat)]
        self.norm = keras.layers.BatchNormalization()
        self.mlp = [keras.layers.Dense(u, activation="relu") for u in hp.hidden]
        self.out = keras.layers.Dense(1, activation="sigmoid")

    def call(self, inputs, training=False):
        cat = inputs["cat"]
        parts = [self.norm(inputs["num"], training=training)]
        parts += [e(cat[:, i]) for i, e in enumerate(self.embs)]
        h = tf.concat(parts, axis=-1)
        for d in self.mlp:
            h = d(h)
        return self.out(h)

    def test_step(self, data):
        # same as keras' but keeps the predictions' mean for calibration checks
        x, y = data
        y_pred = self(x, training=False)
        self.compute_loss(x=x, y=y, y_pred=y_pred)
        out = self.compute_metrics(x, y, y_pred)
        out["mean_pred"] = tf.reduce_mean(y_pred)
        return out
