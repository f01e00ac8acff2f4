import math
import keras


@keras.saving.register_keras_serializable()
class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps):
        self.peak_lr, self.warmup_steps, self.total_steps = peak_lr, warmup_steps, total_steps

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.peak_lr * step / max(self.warmup_steps, 1)
        prog = (step - self.warmup_steps) / max(self.total_steps - self.warmup_steps, 1)
        cos = 0.5 * self.peak_lr * (1 + keras.ops.cos(math.pi * keras.ops.minimum(prog, 1.0)))
        return keras.ops.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_steps": self.warmup_steps, "total_steps": self.total_steps}
