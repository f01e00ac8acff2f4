# Flow matching (Lipman et al.) with an optimal-transport path -- tf2/keras3 + horovod
# run: horovodrun -np 4 python fm_train.py --data mnist_train.npy
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument('--data', default='mnist_train.npy')
ap.add_argument('--epochs', type=int, default=50)
ap.add_argument('--batch', type=int, default=128)
ap.add_argument('--lr', type=float, default=1e-3)
ap.add_argument('--sigma_min', type=float, default=1e-4)
ap.add_argument('--ckpt', default='./fm_ckpt')
ap.add_argument('--seed', type=int, default=0)
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

# different noise stream on each worker
keras.utils.set_random_seed(args.seed + hvd.rank())

x_train = np.load(args.data).astype('float32') / 127.5 - 1.0   # (N, 28, 28)
x_train = x_train[..., None]
N = len(x_train)
steps_per_epoch = N // args.batch

dataset = (tf.data.Dataset.from_tensor_slices(x_train)
           .shuffle(10000)
           .batch(args.batch, drop_remainder=True)
           .prefetch(tf.data.AUTOTUNE))


def make_vfield():
    x = keras.Input((28, 28, 1))
    t = keras.Input((1,))
    te = keras.layers.Dense(64, activation='swish')(t)
    te = keras.layers.Dense(28 * 28)(te)
    te = keras.layers.Reshape((28, 28, 1))(te)
    h = keras.layers.Concatenate()([x, te])
    for c in (64, 128, 64):
        h = keras.layers.Conv2D(c, 3, padding='same', activation='swish')(h)
    out = keras.layers.Conv2D(1, 3, padding='same')(h)
    return keras.Model([x, t], out)


vf = make_vfield()
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
ckpt = tf.train.Checkpoint(model=vf, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=2)


@tf.function
def train_step(x1):
    b = tf.shape(x1)[0]
    x0 = tf.random.normal(tf.shape(x1))
    t = tf.random.uniform([b, 1])
    tt = t[:, :, None, None]
    xt = (1 - (1 - args.sigma_min) * tt) * x0 + tt * x1
    target = x1 - (1 - args.sigma_min) * x0
    with tf.GradientTape() as tape:
        v = vf([xt, t], training=True)
        loss = tf.reduce_mean(tf.square(v - target))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, vf.trainable_variables)
    opt.apply_gradients(zip(grads, vf.trainable_variables))
    return loss


@tf.function
def sample(n, steps=100):
    x = tf.random.normal([n, 28, 28, 1])
    dt = 1.0 / steps
    for i in tf.range(steps):
        t = tf.fill([n, 1], tf.cast(i, tf.float32) * dt)
        x = x + dt * vf([x, t], training=False)
    return x


for epoch in range(args.epochs):
    t0 = time.time()
    losses = []
    for x1 in dataset.take(steps_per_epoch):
        losses.append(float(train_step(x1)))
    ep_loss = hvd.allreduce(tf.constant(np.mean(losses)), average=True)
    if hvd.rank() == 0:
        print('epoch %d  loss %.5f  %.1fs' % (epoch, float(ep_loss), time.time() - t0))
        manager.save()
        xs = sample(64).numpy()
        np.save(os.path.join(args.ckpt, 'samples_ep%03d.npy' % epoch), np.clip((xs + 1) * 127.5, 0, 255).astype('uint8'))
