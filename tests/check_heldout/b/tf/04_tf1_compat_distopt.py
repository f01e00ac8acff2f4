# Legacy TF1-style graph training, ported to run on TF2 via tf.compat.v1.
# Fully-connected autoencoder on MNIST, Horovod for multi-GPU.
import argparse
import os

import numpy as np
import tensorflow.compat.v1 as tf
import horovod.tensorflow as hvd

tf.disable_v2_behavior()

parser = argparse.ArgumentParser()
parser.add_argument('--steps', type=int, default=20000, help='total steps (divided among workers)')
parser.add_argument('--batch', type=int, default=100)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--logdir', default='./logs/ae')
FLAGS = parser.parse_args()


def load_mnist():
    (x_train, _), (x_test, _) = tf.keras.datasets.mnist.load_data('mnist-%d.npz' % hvd.rank())
    x_train = x_train.reshape(-1, 784).astype(np.float32) / 255.
    x_test = x_test.reshape(-1, 784).astype(np.float32) / 255.
    return x_train, x_test


def batches(x, bs):
    # endless generator over this worker's slice of the data
    while True:
        idx = np.random.permutation(len(x))
        for i in range(0, len(idx) - bs + 1, bs):
            yield x[idx[i:i + bs]]


def autoencoder(x):
    h = tf.layers.dense(x, 256, activation=tf.nn.relu)
    z = tf.layers.dense(h, 32, activation=tf.nn.relu)
    h = tf.layers.dense(z, 256, activation=tf.nn.relu)
    return tf.layers.dense(h, 784, activation=tf.nn.sigmoid)


def main():
    hvd.init()

    x_train, x_test = load_mnist()
    x_train = x_train[hvd.rank()::hvd.size()]

    x = tf.placeholder(tf.float32, [None, 784])
    recon = autoencoder(x)
    loss = tf.reduce_mean(tf.square(recon - x))
    avg_loss = hvd.allreduce(loss)

    opt = tf.train.AdamOptimizer(FLAGS.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    global_step = tf.train.get_or_create_global_step()
    train_op = opt.minimize(loss, global_step=global_step)

    hooks = [
        hvd.BroadcastGlobalVariablesHook(0),
        tf.train.StopAtStepHook(last_step=FLAGS.steps // hvd.size()),
        tf.train.LoggingTensorHook(tensors={'step': global_step, 'loss': avg_loss}, every_n_iter=200),
    ]

    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    config.gpu_options.visible_device_list = str(hvd.local_rank())

    checkpoint_dir = FLAGS.logdir if hvd.rank() == 0 else None

    gen = batches(x_train, FLAGS.batch)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=checkpoint_dir,
                                           hooks=hooks,
                                           config=config,
                                           save_checkpoint_steps=1000) as sess:
        while not sess.should_stop():
            sess.run(train_op, feed_dict={x: next(gen)})

    if hvd.rank() == 0:
        print('done')


if __name__ == '__main__':
    main()
