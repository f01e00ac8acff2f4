import tensorflow as tf


class NoamLike(tf.keras.optimizers.schedules.LearningRateSchedule):
    """Linear warm-up to `peak` over `warmup` updates, then 1/sqrt(update) decay."""

    def __init__(self, peak, warmup):
        self.peak, self.warmup = peak, float(warmup)

    def __call__(self, step):
        step = tf.maximum(tf.cast(step, tf.float32), 1.0)
        return self.peak * tf.minimum(step / self.warmup, tf.sqrt(self.warmup / step))
