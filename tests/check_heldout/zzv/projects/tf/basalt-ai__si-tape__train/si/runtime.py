import logging
import tensorflow as tf
import horovod.tensorflow as hvd


def setup_devices():
    """Let TF grow GPU memory instead of grabbing everything at start-up."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        try:
            tf.config.experimental.set_memory_growth(g, True)
        except RuntimeError as e:  # already initialised
            logging.warning("memory growth: %s", e)
    return len(gpus)


def get_logger(name="si"):
    log = logging.getLogger(name)
    logging.basicConfig(format=f"%(asctime)s [{hvd.rank()}/{hvd.size()}] %(message)s", level=logging.INFO)
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)
    return log
