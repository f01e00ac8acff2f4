import math

import keras


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, total):
        super().__init__()
        self.peak, self.warmup, self.total = float(peak), float(warmup), float(total)

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.peak * (step + 1.0) / self.warmup
        frac = keras.ops.minimum(1.0, (step - self.warmup) / (self.total - self.warmup))
        cos = 0.5 * self.peak * (1.0 + keras.ops.cos(math.pi * frac))
        return keras.ops.where(step < self.warmup, warm, cos)

    def get_config(self):
        return {"peak": self.peak, "warmup": self.warmup, "total": self.total}
