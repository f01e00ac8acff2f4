import math

import horovod.tensorflow.keras as hvd
import keras


def cosine_schedule(peak_lr, epochs, warmup=2):
    def fn(epoch, lr):
        if epoch < warmup:
            return peak_lr * (epoch + 1) / warmup
        t = (epoch - warmup) / max(1, epochs - warmup)
        return 0.5 * peak_lr * (1.0 + math.cos(math.pi * t))
    return fn


def distributed_callbacks(peak_lr, epochs, log_dir=None):
    """Callbacks every rank needs (metric averaging, lr schedule), plus rank-0 logging."""
    cbs = [hvd.callbacks.MetricAverageCallback(),
           keras.callbacks.LearningRateScheduler(cosine_schedule(peak_lr, epochs))]
    if log_dir and hvd.rank() == 0:
        cbs.append(keras.callbacks.TensorBoard(log_dir=log_dir, update_freq=200))
    return cbs
