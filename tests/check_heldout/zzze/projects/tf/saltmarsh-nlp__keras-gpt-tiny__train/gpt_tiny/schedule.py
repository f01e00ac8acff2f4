import math

import keras


@keras.saving.register_keras_serializable("gpt_tiny")
class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warm-up to `peak`, cosine down to `peak * floor`, both in optimizer steps."""

    def __init__(self, peak, warmup, total, floor=0.1):
        self.peak, self.warmup, self.total, self.floor = peak, warmup, total, floor

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.peak * (step + 1.0) / self.warmup
        t = keras.ops.clip((step - self.warmup) / max(1, self.total - self.warmup), 0.0, 1.0)
        cos = self.peak * (self.floor + (1 - self.floor) * 0.5 * (1 + keras.ops.cos(math.pi * t)))
        return keras.ops.where(step < self.warmup, warm, cos)

    def get_config(self):
        return dict(peak=self.peak, warmup=self.warmup, total=self.total, floor=self.floor)
