import keras
from keras import ops


@keras.saving.register_keras_serializable(package="tbert")
class WarmupPolyDecay(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warmup to `peak_lr`, then linear (power=1) decay to zero."""

    def __init__(self, peak_lr, warmup_steps, total_steps):
        self.peak_lr = peak_lr
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps

    def __call__(self, step):
        step = ops.cast(step, "float32")
        warm = self.peak_lr * step / max(self.warmup_steps, 1)
        frac = (step - self.warmup_steps) / max(self.total_steps - self.warmup_steps, 1)
        decay = self.peak_lr * ops.maximum(1.0 - frac, 0.0)
        return ops.where(step < self.warmup_steps, warm, decay)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_steps": self.warmup_steps,
                "total_steps": self.total_steps}
