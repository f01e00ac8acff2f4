import logging

import tensorflow as tf
import horovod.tensorflow as hvd

log = logging.getLogger("tcnmt")


def setup_runtime(seed=0, xla=False):
    """Horovod + TF runtime settings shared by all entry points."""
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    tf.config.optimizer.set_jit(xla)
    tf.random.set_seed(seed)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(name)s %(message)s")
    log.info("horovod: %d workers", hvd.size())
    return hvd.rank(), hvd.size()
