import keras
from keras import layers


def tiny_unet(num_classes, width=32):
    inp = keras.Input((None, None, 3))
    c1 = layers.Conv2D(width, 3, padding="same", activation="relu")(inp)
    p1 = layers.MaxPooling2D()(c1)
    c2 = layers.Conv2D(width * 2, 3, padding="same", activation="relu")(p1)
    u1 = layers.UpSampling2D()(c2)
    m1 = layers.Concatenate()([u1, c1])
    c3 = layers.Conv2D(width, 3, padding="same", activation="relu")(m1)
    return keras.Model(inp, layers.Conv2D(num_classes, 1)(c3))


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps):
        self.peak_lr, self.warmup_steps, self.total_steps = peak_lr, warmup_steps, total_steps

    def __call__(self, step):
        import tensorflow as tf
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * (step + 1.0) / self.warmup_steps
        frac = (step - self.warmup_steps) / max(1.0, float(self.total_steps - self.warmup_steps))
        cos = 0.5 * self.peak_lr * (1.0 + tf.cos(3.14159265 * tf.minimum(frac, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_steps": self.warmup_steps, "total_steps": self.total_steps}
