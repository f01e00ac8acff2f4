"""Things kept from the TF 1.x version so both branches share the launcher."""
import tensorflow as tf


def make_session_config(local_rank, allow_growth=True):
    """One GPU per process (was passed to tf.train.MonitoredTrainingSession)."""
    config = tf.compat.v1.ConfigProto()
    config.gpu_options.allow_growth = allow_growth
    config.gpu_options.visible_device_list = str(local_rank)
    config.allow_soft_placement = True
    return config


def get_logger():
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    return tf.compat.v1.logging
