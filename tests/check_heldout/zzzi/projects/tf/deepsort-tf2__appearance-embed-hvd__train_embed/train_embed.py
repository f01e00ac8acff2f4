"""Cosine metric learning for the Deep SORT appearance descriptor (MARS), Horovod edition."""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from deep_cosine.hvd_utils import init_horovod, global_mean
from deep_cosine.data import mars_index, worker_split
from deep_cosine.network import cosine_softmax_net
from deep_cosine.schedule import lr_for_step


class Trainer:
    def __init__(self, args, rank, size):
        self.args, self.rank = args, rank
        files, labels, n_cls = mars_index(args.root, 'train')
        self.train_ds, self.steps = worker_split(files, labels, rank, size, args.batch)
        vfiles, vlabels, _ = mars_index(args.root, 'train')
        self.val_ds, self.val_steps = worker_split(vfiles[::20], vlabels[::20], rank, size, args.batch)
        self.model = cosine_softmax_net(n_cls, args.init_weights)
        self.scale = tf.Variable(10.0, trainable=True, name='softmax_scale')
        self.opt = keras.optimizers.Adam(learning_rate=args.lr)
        self.vars = self.model.trainable_variables + [self.scale]
        self.opt.build(self.vars)
        # identical starting point on every worker: weights, scale and the (zero) Adam slots
        hvd.broadcast_variables(self.model.variables + [self.scale] + list(self.opt.variables), root_rank=0)
        self.global_step = 0

    @tf.function
    def _step(self, x, y):
        with tf.GradientTape() as tape:
            _, cos = self.model(x, training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, self.scale * cos))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, self.vars)
        self.opt.apply_gradients(zip(grads, self.vars))
        return loss

    def evaluate(self):
        correct = seen = 0
        for x, y in self.val_ds.take(self.val_steps):
            _, cos = self.model(x, training=False)
            correct += int(tf.reduce_sum(tf.cast(tf.argmax(cos, 1, output_type=tf.int32) == tf.cast(y, tf.int32), tf.int32)))
            seen += int(tf.size(y))
        return global_mean(correct, seen, 'val_acc')

    def fit(self):
        a = self.args
        for epoch in range(a.epochs):
            t0 = time.time()
            for x, y in self.train_ds.take(self.steps):
                self.opt.learning_rate.assign(lr_for_step(self.global_step, a.lr, a.warmup_steps, a.boundaries))
                loss = self._step(x, y)
                self.global_step += 1
            acc = self.evaluate()
            if self.rank == 0:
                print('epoch %d  loss %.3f  val-acc %.4f  (%.0fs)' % (epoch, float(loss), acc, time.time() - t0))
                os.makedirs(a.out, exist_ok=True)
                self.model.save_weights(os.path.join(a.out, 'mars_cosine.weights.h5'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default='data/MARS')
    ap.add_argument('--init-weights', default=None)
    ap.add_argument('--batch', type=int, default=128)
    ap.add_argument('--lr', type=float, default=1e-3)
    ap.add_argument('--warmup-steps', type=int, default=500)
    ap.add_argument('--boundaries', type=int, nargs='*', default=[30000, 50000])
    ap.add_argument('--epochs', type=int, default=40)
    ap.add_argument('--out', default='checkpoints')
    args = ap.parse_args()
    rank, size = init_horovod()
    Trainer(args, rank, size).fit()


if __name__ == '__main__':
    main()
