import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd


def masked_ce(labels, logits, ignore=255):
    labels = tf.squeeze(labels, -1)
    valid = tf.not_equal(labels, ignore)
    ce = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.where(valid, labels, 0), logits)
    valid = tf.cast(valid, ce.dtype)
    return tf.reduce_sum(ce * valid) / tf.maximum(tf.reduce_sum(valid), 1.0)


class SegTrainer:
    def __init__(self, model, optimizer, wd=5e-4, fp16_allreduce=False):
        self.model = model
        self.optimizer = optimizer
        self.wd = wd
        self.compression = hvd.Compression.fp16 if fp16_allreduce else hvd.Compression.none

    @tf.function
    def train_step(self, img, lbl):
        with tf.GradientTape() as tape:
            logits = self.model(img, training=True)
            loss = masked_ce(lbl, logits)
            l2 = tf.add_n([tf.nn.l2_loss(v) for v in self.model.trainable_variables if "kernel" in v.name])
            total = loss + self.wd * l2
        dist_tape = hvd.DistributedGradientTape(tape, compression=self.compression)
        grads = tape.gradient(total, self.model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 5.0)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_epoch(self, ds, epoch, log_every=50):
        t0 = time.time()
        for i, (img, lbl) in enumerate(ds):
            loss = self.train_step(img, lbl)
            if hvd.rank() == 0 and i % log_every == 0:
                print("epoch %d iter %d loss %.4f lr %.5f (%.1fs)" % (
                    epoch, i, float(loss), float(self.optimizer.learning_rate), time.time() - t0), flush=True)
