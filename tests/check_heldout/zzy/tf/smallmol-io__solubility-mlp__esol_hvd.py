# ESOL aqueous solubility (logS) from 1024-bit ECFP4 fingerprints.
# TF2 custom loop + Horovod.  Fingerprints are precomputed by featurize.py into esol_ecfp4.npz.
#
#   horovodrun -np 2 python esol_hvd.py --npz esol_ecfp4.npz
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--npz", default="esol_ecfp4.npz")
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--out", default="weights")
FLAGS = parser.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

data = np.load(FLAGS.npz)
fps, logS, fold = data["fp"].astype(np.float32), data["logS"].astype(np.float32), data["fold"]
x_train, y_train = fps[fold != 0], logS[fold != 0]     # fold 0 = scaffold-held-out test fold
x_test, y_test = fps[fold == 0], logS[fold == 0]

# each worker takes a contiguous block of the (pre-shuffled) training set
n_per = len(y_train) // hvd.size()
lo = hvd.rank() * n_per
train_ds = (tf.data.Dataset.from_tensor_slices((x_train[lo:lo + n_per], y_train[lo:lo + n_per]))
            .shuffle(n_per, reshuffle_each_iteration=True)
            .batch(FLAGS.batch, drop_remainder=True))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(256)

model = tf.keras.Sequential([
    tf.keras.layers.Input((fps.shape[1],)),
    tf.keras.layers.Dense(512, activation="relu"),
    tf.keras.layers.Dropout(0.2),
    tf.keras.layers.Dense(128, activation="relu"),
    tf.keras.layers.Dense(1),
])
opt = tf.keras.optimizers.Adam(FLAGS.lr * hvd.size())
mse = tf.keras.losses.MeanSquaredError()

model(x_train[:1])            # build the variables
opt.build(model.trainable_variables)
hvd.broadcast_global_variables(0)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y[:, None], model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def test_rmse():
    se = 0.0
    for x, y in test_ds:
        se += float(tf.reduce_sum(tf.square(model(x, training=False)[:, 0] - y)))
    return float(np.sqrt(se / len(y_test)))


best = np.inf
for epoch in range(FLAGS.epochs):
    for x, y in train_ds:
        loss = train_step(x, y)
    rmse = test_rmse()
    if hvd.rank() == 0:
        print("epoch %3d  train_mse %.4f  test_rmse %.4f" % (epoch, float(loss), rmse))
        if rmse < best:
            best = rmse
            os.makedirs(FLAGS.out, exist_ok=True)
            model.save_weights(os.path.join(FLAGS.out, "esol_mlp.weights.h5"))
