import os

import tensorflow as tf


def setup_gpu(cfg):
    # the workstation is shared: only use the card given in the config
    os.environ["CUDA_VISIBLE_DEVICES"] = str(cfg["gpu"])
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
