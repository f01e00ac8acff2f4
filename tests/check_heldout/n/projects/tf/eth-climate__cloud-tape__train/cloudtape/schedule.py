import math

import tensorflow as tf


class WarmupCosine(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps, floor=0.0):
        self.peak_lr, self.warmup_steps, self.total_steps, self.floor = peak_lr, warmup_steps, total_steps, floor

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * (step + 1.0) / float(self.warmup_steps)
        t = (step - self.warmup_steps) / float(max(1, self.total_steps - self.warmup_steps))
        cos = self.floor + 0.5 * (self.peak_lr - self.floor) * (1.0 + tf.cos(math.pi * tf.minimum(t, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return dict(peak_lr=self.peak_lr, warmup_steps=self.warmup_steps, total_steps=self.total_steps,
                    floor=self.floor)


def make_schedule(base_lr, n_workers, warmup_steps, total_steps):
    """Peak lr follows the global batch: base_lr is tuned for one worker."""
    return WarmupCosine(base_lr * n_workers, warmup_steps, total_steps)
