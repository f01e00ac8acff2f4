import os

import tensorflow as tf


def setup_gpus(mixed_precision=False):
    """Memory growth on every visible GPU so several workers can share a node without OOM at start."""
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if mixed_precision and gpus:
        import keras
        keras.mixed_precision.set_global_policy("mixed_float16")
    return len(gpus)
