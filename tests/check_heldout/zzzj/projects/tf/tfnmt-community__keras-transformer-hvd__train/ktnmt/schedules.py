import keras


class InverseSqrtSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_updates):
        self.peak_lr = peak_lr
        self.warmup = float(warmup_updates)

    def __call__(self, step):
        step = keras.ops.maximum(keras.ops.cast(step, "float32"), 1.0)
        return self.peak_lr * keras.ops.minimum(step / self.warmup, keras.ops.sqrt(self.warmup / step))

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_updates": self.warmup}
