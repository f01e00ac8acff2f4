"""A small Keras model trained with fit() on Horovod's Keras API, written for hvdkit check's class cases.
Every case in cases.py is this file with a few explicit edits; as it stands, all eight steps are right.
"""
import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

rng = np.random.default_rng(11)
rows = rng.random((600, 5)).astype("float32")
labels = (rows[:, 0] > rows[:, 1]).astype("int64")
per_rank = len(rows) // hvd.size()
part = slice(hvd.rank() * per_rank, (hvd.rank() + 1) * per_rank)
train = tf.data.Dataset.from_tensor_slices((rows[part], labels[part])).shuffle(128).batch(20)


def new_model():
    net = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(2)])
    rmsprop = tf.keras.optimizers.RMSprop(learning_rate=0.002 * hvd.size())
    net.compile(optimizer=hvd.DistributedOptimizer(rmsprop),
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return net


model = new_model()
callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
if hvd.rank() == 0:
    callbacks.append(tf.keras.callbacks.ModelCheckpoint("keras-case.weights.h5", save_weights_only=True))
model.fit(train, epochs=3, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
