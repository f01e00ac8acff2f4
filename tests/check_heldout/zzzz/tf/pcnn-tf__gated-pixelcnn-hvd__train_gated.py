# Gated PixelCNN on (binarized) MNIST / Fashion-MNIST -- tf2 + horovod
# usage: horovodrun -np 2 python train_gated.py --dataset mnist
import argparse
import math
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--dataset', default='mnist')
parser.add_argument('--data_dir', default='./data')
parser.add_argument('--batch_size', type=int, default=32)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--n_layers', type=int, default=12)
parser.add_argument('--filters', type=int, default=64)
parser.add_argument('--n_levels', type=int, default=2)
parser.add_argument('--out', default='./gated_pcnn')
args = parser.parse_args()

GLOBAL_BATCH = args.batch_size * hvd.size()
LR = args.lr * hvd.size()


class MaskedConv(tf.keras.layers.Layer):
    def __init__(self, filters, k, mask_type, **kw):
        super().__init__(**kw)
        self.filters, self.k, self.mask_type = filters, k, mask_type

    def build(self, shape):
        self.w = self.add_weight(name='w', shape=(self.k, self.k, shape[-1], self.filters),
                                 initializer='glorot_uniform')
        self.b = self.add_weight(name='b', shape=(self.filters,), initializer='zeros')
        m = np.ones((self.k, self.k, shape[-1], self.filters), np.float32)
        c = self.k // 2
        m[c, c + (self.mask_type == 'B'):] = 0
        m[c + 1:] = 0
        self.mask = tf.constant(m)

    def call(self, x):
        return tf.nn.conv2d(x, self.w * self.mask, 1, 'SAME') + self.b


class GatedBlock(tf.keras.layers.Layer):
    def __init__(self, filters, **kw):
        super().__init__(**kw)
        self.conv = MaskedConv(2 * filters, 3, 'B')
        self.res = tf.keras.layers.Conv2D(filters, 1)

    def call(self, x):
        h = self.conv(x)
        a, b = tf.split(h, 2, axis=-1)
        return x + self.res(tf.tanh(a) * tf.sigmoid(b))


def build_model():
    inp = tf.keras.Input((28, 28, 1))
    h = MaskedConv(args.filters, 7, 'A')(inp)
    for _ in range(args.n_layers):
        h = GatedBlock(args.filters)(h)
    h = tf.keras.layers.ReLU()(h)
    h = tf.keras.layers.Conv2D(args.filters, 1, activation='relu')(h)
    out = tf.keras.layers.Conv2D(args.n_levels, 1)(h)
    return tf.keras.Model(inp, out)


def load_data():
    f = np.load(os.path.join(args.data_dir, args.dataset + '.npz'))
    x_tr = (f['x_train'] / 255.0 * (args.n_levels - 1)).round().astype(np.int32)[..., None]
    x_te = (f['x_test'] / 255.0 * (args.n_levels - 1)).round().astype(np.int32)[..., None]
    return x_tr, x_te


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    x_tr, x_te = load_data()
    train_ds = (tf.data.Dataset.from_tensor_slices(x_tr).shard(hvd.size(), hvd.rank())
                .shuffle(10000).batch(args.batch_size, drop_remainder=True).prefetch(4))
    test_ds = tf.data.Dataset.from_tensor_slices(x_te).batch(256)

    model = build_model()
    opt = tf.keras.optimizers.Adam(LR)
    scale = 1.0 / (28 * 28 * math.log(2.0))

    @tf.function
    def step(x, first):
        with tf.GradientTape() as tape:
            logits = model(tf.cast(x, tf.float32) / (args.n_levels - 1), training=True)
            nll = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=x[..., 0], logits=logits))
        dtape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(nll, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, 0)
            hvd.broadcast_variables(opt.variables, 0)
        return nll

    @tf.function
    def eval_nll(x):
        logits = model(tf.cast(x, tf.float32) / (args.n_levels - 1), training=False)
        return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=x[..., 0], logits=logits),
                             axis=[1, 2])

    first = True
    for epoch in range(args.epochs):
        t0 = time.time()
        losses = []
        for x in train_ds:
            losses.append(step(x, first).numpy())
            first = False
        train_bpd = hvd.allreduce(tf.constant(np.mean(losses) * 28 * 28 * scale)).numpy()
        # full test set on each worker -> same number everywhere, only print on 0
        tot, n = 0.0, 0
        for x in test_ds:
            v = eval_nll(x)
            tot += float(tf.reduce_sum(v)); n += int(v.shape[0])
        if hvd.rank() == 0:
            print('epoch %d  train %.4f bpd  test %.4f bpd  %.0fs' % (epoch, train_bpd, tot / n * scale,
                                                                     time.time() - t0))
            os.makedirs(args.out, exist_ok=True)
            model.save_weights(os.path.join(args.out, 'gated_pcnn_%02d.weights.h5' % epoch))


if __name__ == '__main__':
    main()
