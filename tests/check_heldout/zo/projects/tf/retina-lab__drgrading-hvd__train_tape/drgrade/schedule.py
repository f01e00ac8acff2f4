import math

import keras


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warm-up to `peak_lr`, then cosine decay to `floor * peak_lr`."""

    def __init__(self, peak_lr, warmup_steps, total_steps, floor=0.01):
        self.peak_lr = peak_lr
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self.floor = floor

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.peak_lr * (step + 1.0) / max(self.warmup_steps, 1)
        progress = keras.ops.clip((step - self.warmup_steps) / max(self.total_steps - self.warmup_steps, 1), 0.0, 1.0)
        cosine = self.peak_lr * (self.floor + (1 - self.floor) * 0.5 * (1 + keras.ops.cos(math.pi * progress)))
        return keras.ops.where(step < self.warmup_steps, warm, cosine)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_steps": self.warmup_steps,
                "total_steps": self.total_steps, "floor": self.floor}
