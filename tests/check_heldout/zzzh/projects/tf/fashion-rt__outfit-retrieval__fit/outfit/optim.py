import keras
import horovod.tensorflow.keras as hvd


def build_optimizer(base_lr, decay_steps, clipnorm=1.0):
    # linear scaling rule (Goyal et al.): peak lr grows with the number of workers
    peak_lr = base_lr * hvd.size()
    schedule = keras.optimizers.schedules.CosineDecay(peak_lr, decay_steps, alpha=0.01)
    return hvd.DistributedOptimizer(keras.optimizers.Adam(schedule, clipnorm=clipnorm))
