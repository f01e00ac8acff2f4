import keras
import tensorflow as tf


class IntentClassifier(keras.Model):
    """BiGRU encoder with a custom train_step (label smoothing + token dropout)."""

    def __init__(self, vocab_size, num_intents, embed_dim, hidden, dropout, **kw):
        super().__init__(**kw)
        self.embed = keras.layers.Embedding(vocab_size, embed_dim, mask_zero=True)
        self.encoder = keras.layers.Bidirectional(keras.layers.GRU(hidden // 2))
        self.drop = keras.layers.Dropout(dropout)
        self.out = keras.layers.Dense(num_intents)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.acc = keras.metrics.SparseCategoricalAccuracy(name="acc")

    def call(self, ids, training=False):
        return self.out(self.drop(self.encoder(self.embed(ids)), training=training))

    @property
    def metrics(self):
        return [self.loss_tracker, self.acc]

    def _loss(self, y, logits):
        onehot = tf.one_hot(y, tf.shape(logits)[-1])
        return keras.losses.categorical_crossentropy(onehot, logits, from_logits=True, label_smoothing=0.1)

    def train_step(self, data):
        ids, y = data
        keep = tf.cast(tf.random.uniform(tf.shape(ids)) > 0.05, ids.dtype)
        with tf.GradientTape() as tape:
            logits = self(ids * keep, training=True)
            loss = tf.reduce_mean(self._loss(y, logits))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        ids, y = data
        logits = self(ids, training=False)
        self.loss_tracker.update_state(tf.reduce_mean(self._loss(y, logits)))
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
