import keras
import tensorflow as tf


class CrossLayer(keras.layers.Layer):
    def build(self, input_shape):
        d = input_shape[-1]
        self.w = self.add_weight(shape=(d, 1), initializer="glorot_uniform", name="w")
        self.b = self.add_weight(shape=(d,), initializer="zeros", name="b")

    def call(self, x0, x):
        return x0 * tf.matmul(x, self.w) + self.b + x


class DeepCrossNet(keras.Model):
    """DCN with a custom train_step / test_step so that the loss and accuracy trackers are ours."""

    def __init__(self, num_buckets, num_sparse, embed_dim, **kw):
        super().__init__(**kw)
        self.num_buckets, self.num_sparse, self.embed_dim = num_buckets, num_sparse, embed_dim
        self.embed = keras.layers.Embedding(num_buckets, embed_dim)
        self.flat = keras.layers.Reshape((num_sparse * embed_dim,))
        self.cross = [CrossLayer() for _ in range(2)]
        self.deep = keras.Sequential([keras.layers.Dense(128, activation="relu"),
                                      keras.layers.Dense(64, activation="relu")])
        self.head = keras.layers.Dense(1)
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.acc = keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)

    def call(self, inputs, training=False):
        x0 = tf.concat([inputs["dense"], self.flat(self.embed(inputs["sparse"]))], axis=-1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        h = tf.concat([x, self.deep(x0, training=training)], axis=-1)
        return tf.squeeze(self.head(h), -1)

    def get_config(self):
        return {**super().get_config(), "num_buckets": self.num_buckets, "num_sparse": self.num_sparse,
                "embed_dim": self.embed_dim}

    @property
    def metrics(self):
        return [self.loss_tracker, self.acc]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.loss_fn(y, logits)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, logits))
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
