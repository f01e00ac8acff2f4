import tensorflow as tf

import horovod.tensorflow.keras as hvd


def setup_horovod():
    """Initialise Horovod and give each rank the GPU matching its local rank."""
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if hvd.rank() == 0:
        print(f"Horovod: {hvd.size()} ranks, {len(gpus)} visible GPU(s) per node", flush=True)
