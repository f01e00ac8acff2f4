import keras
import tensorflow as tf
import horovod.tensorflow as hvd


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, decay):
        self.peak, self.warmup, self.decay = peak, warmup, decay

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * step / self.warmup
        prog = tf.minimum((step - self.warmup) / self.decay, 1.0)
        cos = 0.5 * self.peak * (1.0 + tf.cos(3.14159265 * prog))
        return tf.where(step < self.warmup, warm, cos)

    def get_config(self):
        return {"peak": self.peak, "warmup": self.warmup, "decay": self.decay}


def make_schedule(cfg):
    o = cfg["optim"]
    # linear scaling rule: more workers, larger effective batch
    return WarmupCosine(o["lr"] * hvd.size(), o["warmup_steps"], o["decay_steps"])
