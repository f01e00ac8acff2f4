"""Horovod boilerplate shared by our TF training scripts."""
import os

import horovod.tensorflow as hvd
import tensorflow as tf


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def warmup_lr(epoch, base_lr, warmup_epochs=3):
    """Linear warm-up from base_lr to base_lr * hvd.size() over the first epochs."""
    target = base_lr * hvd.size()
    if epoch >= warmup_epochs:
        return target
    return base_lr + (target - base_lr) * epoch / warmup_epochs


def broadcast_model_and_optimizer(model, opt):
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)


def allreduce_mean(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float32), name=name))


class Checkpointer:
    """tf.train.CheckpointManager on rank 0; a no-op on the other ranks."""

    def __init__(self, model, opt, directory, keep=3):
        self.manager = None
        if hvd.rank() == 0:
            os.makedirs(directory, exist_ok=True)
            ck = tf.train.Checkpoint(model=model, optimizer=opt)
            self.manager = tf.train.CheckpointManager(ck, directory, max_to_keep=keep)

    def save(self, epoch):
        if self.manager is not None:
            self.manager.save(checkpoint_number=epoch)
