"""Horovod's Keras API on Keras 3 through model.fit, as users write it (no hvdkit import).

Run at 2 ranks by tests/test_horovod_keras3.py with a scratch directory as argv[1]. Each check prints
`HVD3 {json}` with its inputs and observations; the test computes the expected values itself.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

import horovod.tensorflow.keras as hvd
from horovod.tensorflow.elastic import TensorFlowState

hvd.init()
R, N = hvd.rank(), hvd.size()
OUT = sys.argv[1]
STEPS, BATCH, EPOCHS = 4, 4, 4


def emit(check, **values):
    values = {k: np.asarray(v).tolist() for k, v in values.items()}
    print("HVD3 " + json.dumps({"check": check, "rank": R, **values}), flush=True)


def data(rank):
    x = ((np.arange(STEPS * BATCH * 2).reshape(-1, 2) * (rank + 3)) % 11 / 11.0).astype("float32")
    return x, (x @ np.array([[2.0], [-1.0]], "float32") + 0.5 * rank).astype("float32")


def linear(kernel, bias):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(
        1, kernel_initializer=tf.keras.initializers.Constant(kernel),
        bias_initializer=tf.keras.initializers.Constant(bias))])
    return model


class Record(tf.keras.callbacks.Callback):
    """Copies what it sees: the learning rate at each batch's start, and each epoch's logs."""

    def __init__(self):
        super().__init__()
        self.lr, self.logs = [], []

    def on_train_batch_begin(self, batch, logs=None):
        self.lr.append(float(self.model.optimizer.learning_rate.numpy()))

    def on_epoch_end(self, epoch, logs=None):
        self.logs.append({k: float(v) for k, v in logs.items()})


def check_fit():
    """SGD with momentum wrapped in DistributedOptimizer, every callback, rank-dependent start and data."""
    x, y = data(R)
    kernel0, bias0 = 0.1 * (R + 1), -0.2 * R
    model = linear(kernel0, bias0)
    model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.1 * N, momentum=0.9)), loss="mse")
    raw, averaged = Record(), Record()
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        raw,
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=0.1 * N, warmup_epochs=2),
        hvd.callbacks.LearningRateScheduleCallback(initial_lr=0.1 * N, multiplier=0.5, start_epoch=2),
        averaged,
    ]
    if R == 0:
        best = hvd.callbacks.BestModelCheckpoint(monitor="loss")
        best.filepath = os.path.join(OUT, "best.keras")
        callbacks.append(best)
    model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0, callbacks=callbacks)
    emit("fit", x=x, y=y, kernel0=kernel0, bias0=bias0, lr=averaged.lr, raw=raw.logs, averaged=averaged.logs,
         kernel=model.layers[0].kernel.numpy(), bias=model.layers[0].bias.numpy(),
         files=sorted(os.listdir(OUT)))
    return model


def check_load_model(model):
    """A model saved with a DistributedOptimizer loads with one (state kept) and trains in step."""
    path = os.path.join(OUT, "model.keras")
    if R == 0:
        model.save(path)
    hvd.allreduce(tf.constant(0.0), name="saved")   # a barrier: rank 1 waits for the file
    loaded = hvd.load_model(path)
    iterations = int(loaded.optimizer.iterations.numpy())
    x, y = data(R)
    loaded.fit(x[:BATCH] * (R + 1), y[:BATCH], batch_size=BATCH, epochs=1, verbose=0)
    emit("load_model", optimizer=type(loaded.optimizer).__name__,
         distributed=hasattr(loaded.optimizer, "register_local_var"), iterations=iterations,
         iterations_after=int(loaded.optimizer.iterations.numpy()),
         kernel=loaded.layers[0].kernel.numpy(), bias=loaded.layers[0].bias.numpy())


def check_broadcast_local():
    """BroadcastGlobalVariablesCallback with a local variable: that one keeps each rank's value."""
    model = linear(1.0 + R, 10.0 + R)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mse")
    x, y = data(R)
    bias = model.layers[0].bias
    model.fit(x[:BATCH], y[:BATCH], batch_size=BATCH, epochs=1, verbose=0,
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0, local_variables=[bias])])
    emit("broadcast_local", kernel=model.layers[0].kernel.numpy(), bias=bias.numpy())


def check_elastic():
    """KerasState: sync takes rank 0's model and attributes; restore goes back to the last commit."""
    model = linear(1.0 + R, 0.0)
    optimizer = tf.keras.optimizers.Adam(0.01)
    optimizer.build(model.trainable_variables)
    state = hvd.elastic.KerasState(model, optimizer, batch=20 + R, epoch=10 + R)
    state.sync()
    synced = (model.layers[0].kernel.numpy(), state.batch, state.epoch)
    model.layers[0].kernel.assign(np.full((2, 1), 7.0 + R, "float32"))
    state.batch = 99
    state.restore()
    restored = (model.layers[0].kernel.numpy(), state.batch)
    model.layers[0].kernel.assign(np.full((2, 1), 5.0, "float32"))
    state.batch = 21
    state.commit()
    model.layers[0].kernel.assign(np.zeros((2, 1), "float32"))
    state.restore()
    variables = [tf.keras.Variable([3.0 + R])]
    TensorFlowState(variables=variables).sync()
    emit("elastic", synced_kernel=synced[0], synced_batch=synced[1], synced_epoch=synced[2],
         restored_kernel=restored[0], restored_batch=restored[1], committed_kernel=model.layers[0].kernel.numpy(),
         committed_batch=state.batch, tf_state_variable=variables[0].numpy())


trained = check_fit()
check_load_model(trained)
check_broadcast_local()
check_elastic()
