import keras
import tensorflow as tf
from keras import layers


class TinyBertMLM(keras.Model):
    def __init__(self, cfg, **kwargs):
        super().__init__(**kwargs)
        self.embed = layers.Embedding(cfg.vocab_size, cfg.hidden)
        self.pos = layers.Embedding(cfg.max_len, cfg.hidden)
        self.blocks = [layers.MultiHeadAttention(cfg.heads, cfg.hidden // cfg.heads)
                       for _ in range(cfg.layers)]
        self.norms = [layers.LayerNormalization(epsilon=1e-12) for _ in range(cfg.layers)]
        self.lm_head = layers.Dense(cfg.vocab_size)
        self.loss_tracker = keras.metrics.Mean(name="mlm_loss")
        self.acc_tracker = keras.metrics.Mean(name="mlm_acc")

    def call(self, inputs, training=False):
        ids = inputs["input_ids"]
        h = self.embed(ids) + self.pos(tf.range(tf.shape(ids)[1]))
        mask = tf.cast(inputs["input_mask"][:, None, :], tf.bool)
        for attn, norm in zip(self.blocks, self.norms):
            h = norm(h + attn(h, h, attention_mask=mask, training=training))
        picked = tf.gather(h, inputs["masked_lm_positions"], batch_dims=1)
        return self.lm_head(picked)

    @property
    def metrics(self):
        return [self.loss_tracker, self.acc_tracker]

    def train_step(self, data):
        inputs, (lm_ids, lm_weights) = data
        with tf.GradientTape() as tape:
            logits = self(inputs, training=True)
            per_tok = keras.losses.sparse_categorical_crossentropy(lm_ids, logits, from_logits=True)
            loss = tf.reduce_sum(per_tok * lm_weights) / (tf.reduce_sum(lm_weights) + 1e-5)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        hits = tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32), lm_ids), tf.float32)
        self.loss_tracker.update_state(loss)
        self.acc_tracker.update_state(tf.reduce_sum(hits * lm_weights) / (tf.reduce_sum(lm_weights) + 1e-5))
        return {m.name: m.result() for m in self.metrics}
