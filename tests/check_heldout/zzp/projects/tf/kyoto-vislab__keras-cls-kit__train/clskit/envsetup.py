import os
import random

import numpy as np
import tensorflow as tf


def configure_gpus():
    """Let TensorFlow grow memory instead of grabbing every GPU up front."""
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)
