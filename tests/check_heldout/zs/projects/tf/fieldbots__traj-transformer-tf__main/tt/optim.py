import keras
import horovod.tensorflow as hvd


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, total):
        self.peak, self.warmup, self.total = peak, warmup, total

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = self.peak * (step + 1) / self.warmup
        prog = keras.ops.clip((step - self.warmup) / max(1, self.total - self.warmup), 0.0, 1.0)
        cos = 0.5 * self.peak * (1 + keras.ops.cos(3.14159265 * prog))
        return keras.ops.where(step < self.warmup, warm, cos)

    def get_config(self):
        return {"peak": self.peak, "warmup": self.warmup, "total": self.total}


def make_optimizer(base_lr, warmup_steps, total_steps, wd=0.05):
    # linear scaling rule (Goyal et al.): peak lr grows with the number of workers
    peak = base_lr * hvd.size()
    return keras.optimizers.AdamW(WarmupCosine(peak, warmup_steps, total_steps), weight_decay=wd,
                                  beta_2=0.95)
