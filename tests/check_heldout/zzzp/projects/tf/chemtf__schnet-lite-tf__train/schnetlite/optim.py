import keras
import horovod.tensorflow as hvd


def build_optimizer(cfg):
    # linear scaling rule: k workers -> k x lr
    sched = keras.optimizers.schedules.ExponentialDecay(cfg.lr * hvd.size(), cfg.decay_steps, 0.96)
    return keras.optimizers.Adam(learning_rate=sched, amsgrad=True)
