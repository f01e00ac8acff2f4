import keras
import tensorflow as tf


class WarmupExponential(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, base_lr, warmup_steps, decay_steps, decay_rate):
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.decay = keras.optimizers.schedules.ExponentialDecay(base_lr, decay_steps, decay_rate)

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.base_lr * (step + 1) / float(self.warmup_steps)
        return tf.cond(step < self.warmup_steps, lambda: warm,
                       lambda: self.decay(step - self.warmup_steps))

    def get_config(self):
        return {"base_lr": self.base_lr, "warmup_steps": self.warmup_steps}


def build_schedule(cfg, steps_per_epoch):
    return WarmupExponential(
        base_lr=cfg.learning_rate,
        warmup_steps=max(1, cfg.warmup_epochs * steps_per_epoch),
        decay_steps=steps_per_epoch,
        decay_rate=cfg.decay_rate,
    )
