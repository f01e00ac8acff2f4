"""Restart support for jobs that hit the 48 h queue limit (PBS resubmits the same script)."""
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd


def make_manager(model, opt, ckpt_dir, keep=3):
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt,
                               epoch=tf.Variable(0, dtype=tf.int64), step=tf.Variable(0, dtype=tf.int64))
    return ckpt, tf.train.CheckpointManager(ckpt, ckpt_dir, max_to_keep=keep)


def restore_and_sync(ckpt, manager, model, opt):
    """Rank 0 reads the newest checkpoint and pushes the weights to the other ranks."""
    if hvd.rank() == 0:
        if manager.latest_checkpoint:
            ckpt.restore(manager.latest_checkpoint)
            print("restored", manager.latest_checkpoint, flush=True)
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return int(ckpt.epoch.numpy()), int(ckpt.step.numpy())


class WallClock:
    def __init__(self, hours, margin_min=20):
        self.deadline = time.time() + hours * 3600 - margin_min * 60

    def out_of_time(self):
        # rank 0's clock decides for everyone
        flag = tf.constant(1 if time.time() > self.deadline else 0)
        return bool(hvd.broadcast(flag, root_rank=0, name="walltime").numpy())
