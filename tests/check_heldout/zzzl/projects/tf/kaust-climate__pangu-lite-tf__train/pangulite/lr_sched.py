import keras
import horovod.tensorflow as hvd


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warm-up to base_lr * world_size, cosine decay afterwards."""

    def __init__(self, base_lr, warmup, total):
        self.peak = base_lr * hvd.size()
        self.warmup = warmup
        self.total = total
        self.base = base_lr

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.base + (self.peak - self.base) * step / max(self.warmup, 1)
        prog = keras.ops.clip((step - self.warmup) / max(self.total - self.warmup, 1), 0.0, 1.0)
        cos = 0.5 * self.peak * (1.0 + keras.ops.cos(3.141592653589793 * prog))
        return keras.ops.where(step < self.warmup, warm, cos)

    def get_config(self):
        return {"base_lr": self.base, "warmup": self.warmup, "total": self.total}
