"""Elastic Horovod training of a small GRU forecaster on price windows (TF2 GradientTape).

horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script hosts.sh \
    python train_elastic_tf.py --windows data/windows.npz
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--windows", default="data/windows.npz")
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--commit-every", type=int, default=200)
parser.add_argument("--ckpt-dir", default="./ckpt_forecaster")
args = parser.parse_args()

hvd.init()
os.makedirs(args.ckpt_dir, exist_ok=True)
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

arrays = np.load(args.windows)
x_all, y_all = arrays["x"].astype("float32"), arrays["y"].astype("float32")
n_val = len(x_all) // 10
x_train, y_train = x_all[:-n_val], y_all[:-n_val]
x_val, y_val = x_all[-n_val:], y_all[-n_val:]


class Forecaster(tf.keras.Model):
    def __init__(self, units=128, horizon=1):
        super().__init__()
        self.gru1 = tf.keras.layers.GRU(units, return_sequences=True)
        self.gru2 = tf.keras.layers.GRU(units)
        self.out = tf.keras.layers.Dense(horizon)

    def call(self, x, training=False):
        return self.out(self.gru2(self.gru1(x, training=training), training=training))


model = Forecaster(horizon=y_train.shape[-1])
optimizer = tf.keras.optimizers.Adam(learning_rate=args.lr)
loss_fn = tf.keras.losses.Huber()


def make_dataset():
    ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
    ds = ds.shard(hvd.size(), hvd.rank()).shuffle(10_000, seed=7, reshuffle_each_iteration=True)
    return ds.batch(args.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def validate():
    # every worker scores the whole validation block; the result is identical on all of them
    pred = model.predict(x_val, batch_size=1024, verbose=0)
    return float(np.mean(np.abs(pred - y_val)))


class ForecasterState(hvd.elastic.ObjectState):
    """Elastic state for a Keras 3 model + optimizer.

    hvd.elastic.TensorFlowKerasState calls optimizer.variables(), which is a property in Keras 3,
    so we keep our own copy of the weights and broadcast the variables ourselves.
    """

    def __init__(self, model, optimizer, **kwargs):
        self.model = model
        self.optimizer = optimizer
        self._weights, self._opt_values = [], []
        super().__init__(bcast_object=hvd.broadcast_object, get_rank=hvd.rank, **kwargs)

    def save(self):
        self._weights = [v.numpy() for v in self.model.variables]
        self._opt_values = [v.numpy() for v in self.optimizer.variables]
        super().save()

    def restore(self):
        for var, value in zip(self.model.variables, self._weights):
            var.assign(value)
        for var, value in zip(self.optimizer.variables, self._opt_values):
            var.assign(value)
        super().restore()

    def sync(self):
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        self.save()
        super().sync()


state = ForecasterState(model, optimizer, batch=0, epoch=0)
train_ds = make_dataset()


def on_state_reset():
    global train_ds
    train_ds = make_dataset()
    if hvd.rank() == 0:
        print(f"reset: {hvd.size()} workers", flush=True)


state.register_reset_callbacks([on_state_reset])


@hvd.elastic.run
def train(state):
    while state.epoch < args.epochs:
        t0 = time.time()
        for i, (x, y) in enumerate(train_ds.skip(state.batch)):
            loss = train_step(x, y)
            state.batch += 1
            if state.batch % args.commit_every == 0:
                state.commit()
        mae = validate()
        if hvd.rank() == 0:
            print(f"epoch {state.epoch}: loss {float(loss):.5f} val MAE {mae:.5f} "
                  f"({time.time() - t0:.1f}s, {hvd.size()} workers)", flush=True)
            model.save_weights(f"{args.ckpt_dir}/epoch_{state.epoch:02d}.weights.h5")
        state.epoch += 1
        state.batch = 0
        state.commit()


train(state)
