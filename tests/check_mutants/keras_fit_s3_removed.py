"""Mutant of base_keras_fit.py, step 3 removed: no shard: every rank reads all the data.

    mpirun -n 2 python tests/check_mutants/base_keras_fit.py --ckpt-dir /tmp
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-dir", default=".")
    args = parser.parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(1)

    x = np.random.default_rng(0).normal(size=(64, 8)).astype("float32")
    y = (x.sum(1) > 0).astype("int64")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(32).batch(16)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
    opt = keras.optimizers.SGD(learning_rate=0.01 * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "model.weights.h5"),
                                                         save_weights_only=True))
    model.fit(dataset, epochs=2, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
