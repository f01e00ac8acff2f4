import os

import tensorflow as tf
import horovod.tensorflow as hvd


@tf.function
def train_one_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def run_validation(model, dataset, threshold):
    """Global MSE and critical success index over all workers' parts of the split."""
    sums = tf.zeros([5], tf.float64)   # sq_err, n_pixels, hits, misses, false_alarms
    for x, y in dataset:
        pred = model(x, training=False)
        p, o = pred >= threshold, y >= threshold
        sums += tf.cast(tf.stack([
            tf.reduce_sum(tf.square(pred - y)), tf.cast(tf.size(y), tf.float32),
            tf.reduce_sum(tf.cast(p & o, tf.float32)), tf.reduce_sum(tf.cast(~p & o, tf.float32)),
            tf.reduce_sum(tf.cast(p & ~o, tf.float32))]), tf.float64)
    sums = hvd.allreduce(sums, op=hvd.Sum)
    mse = float(sums[0] / tf.maximum(sums[1], 1.0))
    csi = float(sums[2] / tf.maximum(sums[2] + sums[3] + sums[4], 1.0))
    return mse, csi


class LoopState:
    def __init__(self, model, optimizer, run_dir):
        self.epoch = tf.Variable(0, trainable=False, dtype=tf.int64)
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=self.epoch)
        self.manager = tf.train.CheckpointManager(self.ckpt, os.path.join(run_dir, "ckpts"), 3)

    def maybe_restore(self):
        # run_dir is on the shared filesystem, so every worker reads the same file
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint).expect_partial()
        return int(self.epoch.numpy())

    def save(self, epoch):
        self.epoch.assign(epoch)
        self.manager.save(checkpoint_number=epoch)
