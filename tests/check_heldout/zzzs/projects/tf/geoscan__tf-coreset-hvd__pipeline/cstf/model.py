import tensorflow as tf


class Classifier(tf.keras.Model):
    def __init__(self, n_cls, width=256):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(width, activation="relu")
        self.d2 = tf.keras.layers.Dense(width // 2, activation="relu", name="embedding")
        self.out = tf.keras.layers.Dense(n_cls)

    def call(self, x, training=False, return_embedding=False):
        e = self.d2(self.d1(x))
        logits = self.out(e)
        if return_embedding:
            return logits, e
        return logits


class WarmupLR(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup):
        self.peak = peak
        self.warmup = warmup

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        return self.peak * tf.minimum(1.0, (step + 1.0) / float(self.warmup))
