import math

import tensorflow as tf


class WarmupCosine(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps):
        super().__init__()
        self.peak_lr, self.warmup_steps, self.total_steps = peak_lr, max(1, warmup_steps), total_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * step / self.warmup_steps
        frac = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak_lr * (1 + tf.cos(math.pi * tf.minimum(frac, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_steps": self.warmup_steps, "total_steps": self.total_steps}
