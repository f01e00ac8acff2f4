import math

import keras


@keras.saving.register_keras_serializable(package="textcls")
class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, total_steps, warmup_steps):
        self.peak_lr, self.total_steps, self.warmup_steps = peak_lr, total_steps, warmup_steps

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.peak_lr * step / max(1, self.warmup_steps)
        progress = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak_lr * (1.0 + keras.ops.cos(math.pi * keras.ops.minimum(progress, 1.0)))
        return keras.ops.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "total_steps": self.total_steps, "warmup_steps": self.warmup_steps}
