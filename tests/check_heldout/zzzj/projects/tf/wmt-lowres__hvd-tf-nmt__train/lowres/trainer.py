import math
import os
from collections import Counter

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def sentence_stats(h, r):
    st = [len(h), len(r)]
    for n in range(1, 5):
        hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
        rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        st += [sum((hc & rc).values()), max(len(h) - n + 1, 0)]
    return st


class Trainer:
    def __init__(self, model, optimizer, label_smoothing, ckpt_dir):
        self.model, self.optimizer, self.eps = model, optimizer, label_smoothing
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, ckpt_dir, max_to_keep=5)
        # make sure every worker starts from the same weights
        hvd.broadcast_variables(self.model.variables, root_rank=0)

    def _loss(self, tgt, logits):
        labels = tf.one_hot(tgt, tf.shape(logits)[-1])
        per_tok = tf.keras.losses.categorical_crossentropy(labels, logits, from_logits=True,
                                                           label_smoothing=self.eps)
        mask = tf.cast(tgt > 0, tf.float32)
        return tf.reduce_sum(per_tok * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)

    @tf.function(reduce_retracing=True)
    def train_step(self, src, tgt):
        with tf.GradientTape() as tape:
            loss = self._loss(tgt[:, 1:], self.model(src, tgt[:, :-1], training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def greedy_bleu_stats(self, dataset, max_len=100):
        stats = np.zeros(10)
        for src, tgt in dataset:
            ys = tf.ones([tf.shape(src)[0], 1], tf.int64)
            for _ in range(min(max_len, int(tf.shape(tgt)[1]) + 10)):
                nxt = tf.argmax(self.model(src, ys)[:, -1], -1)
                ys = tf.concat([ys, nxt[:, None]], 1)
            for h, r in zip(ys[:, 1:].numpy().tolist(), tgt.numpy().tolist()):
                h = h[:h.index(2)] if 2 in h else h
                stats += sentence_stats(h, [w for w in r[1:] if w > 2])
        return hvd.allreduce(tf.constant(stats), op=hvd.Sum).numpy()

    @staticmethod
    def bleu(stats):
        if min(stats[2:]) == 0:
            return 0.0
        logp = sum(math.log(stats[2 + 2 * k] / stats[3 + 2 * k]) for k in range(4)) / 4
        return 100 * math.exp(logp + min(0.0, 1 - stats[1] / stats[0]))

    def save(self):
        if hvd.rank() == 0:
            return self.manager.save()
