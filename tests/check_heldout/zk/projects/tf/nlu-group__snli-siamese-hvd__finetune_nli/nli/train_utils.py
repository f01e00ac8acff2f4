import math

import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup, total):
        self.peak_lr, self.warmup, self.total = peak_lr, warmup, max(total, warmup + 1)

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * (step + 1.0) / self.warmup
        prog = (step - self.warmup) / float(self.total - self.warmup)
        cos = 0.5 * self.peak_lr * (1.0 + tf.cos(math.pi * tf.minimum(prog, 1.0)))
        return tf.where(step < self.warmup, warm, cos)

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup": self.warmup, "total": self.total}


def evaluate(model, ds):
    correct, seen = 0.0, 0.0
    for p, h, y in ds:
        pred = tf.argmax(model(p, h, training=False), -1)
        correct += float(tf.reduce_sum(tf.cast(pred == tf.cast(y, pred.dtype), tf.float32)))
        seen += float(tf.size(y))
    total = hvd.allreduce(tf.constant([correct, seen]), op=hvd.Sum, name="dev_acc")
    return float(total[0] / total[1])


class RankZeroCheckpoint:
    def __init__(self, directory, **trackables):
        self.ckpt = tf.train.Checkpoint(**trackables)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=3)

    def save(self, epoch):
        if hvd.rank() == 0:
            path = self.manager.save(checkpoint_number=epoch)
            tf.get_logger().info("saved %s", path)
