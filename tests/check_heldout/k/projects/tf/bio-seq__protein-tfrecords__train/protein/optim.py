import horovod.tensorflow as hvd
import keras


def make_optimizer(cfg):
    """Adam with linear decay; the peak learning rate grows with the number of workers."""
    peak = cfg.lr * hvd.size()
    schedule = keras.optimizers.schedules.PolynomialDecay(
        initial_learning_rate=peak, decay_steps=cfg.total_steps, end_learning_rate=peak * 0.01)
    return keras.optimizers.Adam(learning_rate=schedule, clipnorm=None)
