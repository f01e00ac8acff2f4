"""Process set-up shared by openharbor TF jobs."""
import logging
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

log = logging.getLogger("router.runtime")


def setup_runtime(seed=17):
    """Initialise Horovod, make GPU memory allocation incremental, seed TF."""
    hvd.init()
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    tf.random.set_seed(seed)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log.info("horovod size=%d local_size=%d", hvd.size(), hvd.local_size())
    return hvd.rank(), hvd.size()
