"""
Tiny Glow-ish flow (additive couplings + actnorm) with keras 3 model.fit and horovod.
loss = bits per dim, so val_loss is val bpd.
"""
import os, math, argparse
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--npz", default="data/mnist.npz")
ap.add_argument("--bs", type=int, default=128)
ap.add_argument("--epochs", type=int, default=40)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--K", type=int, default=6)
ap.add_argument("--ckpt_dir", default="./ckpt")
ap.add_argument("--grid", default="samples.png")
args = ap.parse_args()

hvd.init()

D = 28 * 28


class ActNorm(keras.layers.Layer):
    def build(self, s):
        self.b = self.add_weight(shape=(s[-1],), initializer="zeros", name="b")
        self.logs = self.add_weight(shape=(s[-1],), initializer="zeros", name="logs")
        self.initialized = False

    def call(self, x):
        return (x + self.b) * tf.exp(self.logs), tf.reduce_sum(self.logs) * tf.ones(tf.shape(x)[:1])


class AdditiveCoupling(keras.layers.Layer):
    def __init__(self, flip, **kw):
        super().__init__(**kw)
        self.flip = flip
        self.m = keras.Sequential([keras.layers.Dense(512, activation="relu"), keras.layers.Dense(512, activation="relu"),
                                   keras.layers.Dense(D // 2, kernel_initializer="zeros")])

    def call(self, x):
        a, b = tf.split(x, 2, -1)
        if self.flip:
            a, b = b, a
        b = b + self.m(a)
        return tf.concat([b, a] if self.flip else [a, b], -1)


class Flow(keras.Model):
    def __init__(self, K):
        super().__init__()
        self.norms = [ActNorm() for _ in range(K)]
        self.cps = [AdditiveCoupling(i % 2 == 1) for i in range(K)]
        self.scale = self.add_weight(shape=(D,), initializer="zeros", name="nice_scale")

    def call(self, x):
        h, ld = x, 0.0
        for n, c in zip(self.norms, self.cps):
            h, l = n(h)
            ld += l
            h = c(h)
        h = h * tf.exp(self.scale)
        ld += tf.reduce_sum(self.scale)
        logp = tf.reduce_sum(-0.5 * (h ** 2 + math.log(2 * math.pi)), -1)
        nll = -(logp + ld)
        return (nll / D + math.log(256.)) / math.log(2.)  # bpd per example


def dequant(x):
    x = tf.cast(tf.reshape(x, [-1]), tf.float32)
    return (x + tf.random.uniform([D])) / 256. - 0.5, 0.


f = np.load(args.npz)
train = (tf.data.Dataset.from_tensor_slices(f["x_train"]).shard(hvd.size(), hvd.rank())
         .shuffle(10000).map(dequant).batch(args.bs, drop_remainder=True).repeat())
val = (tf.data.Dataset.from_tensor_slices(f["x_test"]).shard(hvd.size(), hvd.rank())
       .map(dequant).batch(args.bs))
steps = len(f["x_train"]) // (args.bs * hvd.size())

model = Flow(args.K)
# data-dependent actnorm init, on rank 0's batch, broadcast by the callback afterwards
x0, _ = next(iter(train))
h = x0
for n, c in zip(model.norms, model.cps):
    n.build(h.shape)
    mu, var = tf.nn.moments(h, [0])
    n.b.assign(-mu); n.logs.assign(-0.5 * tf.math.log(var + 1e-6))
    h, _ = n(h)
    h = c(h)

opt = keras.optimizers.Adamax(learning_rate=args.lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt), loss=lambda y, bpd: bpd)

cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
       hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=3, verbose=1)]
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "best.weights.h5"), monitor="val_loss",
                                               save_best_only=True, save_weights_only=True, verbose=1))
    cbs.append(keras.callbacks.TensorBoard(log_dir="./tb"))

hist = model.fit(train, steps_per_epoch=steps, epochs=args.epochs, validation_data=val, callbacks=cbs,
                 verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    print("best val bpd: %.4f" % min(hist.history["val_loss"]))
    # reconstructions of a val batch as a grid (no inverse implemented yet)
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    xb, _ = next(iter(val))
    grid = (xb.numpy()[:64] + 0.5).reshape(8, 8, 28, 28).transpose(0, 2, 1, 3).reshape(8 * 28, 8 * 28)
    plt.imsave(args.grid, grid, cmap="gray")
