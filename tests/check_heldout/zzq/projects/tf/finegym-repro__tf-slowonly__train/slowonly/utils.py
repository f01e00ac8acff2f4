import logging
import os
import time

import tensorflow as tf


def setup_logger(rank, log_dir):
    logger = logging.getLogger("slowonly")
    logger.setLevel(logging.INFO)
    if rank == 0:
        os.makedirs(log_dir, exist_ok=True)
        logger.addHandler(logging.FileHandler(os.path.join(log_dir, "train.log")))
        logger.addHandler(logging.StreamHandler())
    else:
        logger.addHandler(logging.NullHandler())
    return logger


class Timer:
    def __enter__(self):
        self.t = time.time()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.time() - self.t


def make_manager(model, optimizer, ckpt_dir):
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
    return ckpt, tf.train.CheckpointManager(ckpt, ckpt_dir, max_to_keep=5)
