"""Nested unpacking: `(x_tr, y_tr), (x_va, y_va) = catalog.load(...)` binds each name to its own element of
what the project's function returns, so the validation data is judged as what it is: a rank's shard (its
metrics need averaging) or the whole set (they are the job's). Keras' `load_data(path=...)` names the file its
download is cached in: a per-rank path still gives every rank the whole data set.

Written from scratch for these tests: a Keras regression project whose loader lives in a package module."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

from crash_scripts import check_project

ENTRY = '''
    """Redshift regression.  horovodrun -np 4 python train.py"""
    import argparse

    import horovod.tensorflow.keras as hvd
    import keras

    from zreg import catalog

    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()

    hvd.init()
    (x_tr, z_tr), (x_va, z_va) = catalog.load("cat.npz", hvd.rank(), hvd.size())
    model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=args.lr * hvd.size()))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("best.keras", save_best_only=True))
    model.fit(x_tr, z_tr, batch_size=256, epochs=args.epochs, validation_data=(x_va, z_va),
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
'''

CATALOG = '''
    import numpy as np


    def _split(x, z, rank, size):
        return x[rank::size], z[rank::size]


    def load(path, rank, size):
        data = np.load(path)
        x, z = data["mags"].astype("float32"), data["z"].astype("float32")
        cut = int(0.9 * len(x))
        train = _split(x[:cut], z[:cut], rank, size)
        val = {val}
        return train, val
'''


def step8(tmp_path, val):
    files = {"train.py": ENTRY, "zreg/__init__.py": "", "zreg/catalog.py": CATALOG.replace("{val}", val)}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[8]


def test_a_sharded_validation_set_unpacked_from_nested_tuples_needs_averaging(tmp_path):
    f = step8(tmp_path, "_split(x[cut:], z[cut:], rank, size)")
    assert f.verdict in FLAGGED, f


def test_a_whole_validation_set_unpacked_from_nested_tuples_is_the_jobs(tmp_path):
    f = step8(tmp_path, "(x[cut:], z[cut:])")
    assert f.verdict == OK, f


KERAS_MNIST = '''
    """MNIST, custom loop.  horovodrun -np 2 python mnist.py"""
    import os

    import tensorflow as tf
    import horovod.tensorflow as hvd


    def datasets(data_dir):
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data(
            path=os.path.join(data_dir, "mnist-%d.npz" % hvd.rank()))
        train = tf.data.Dataset.from_tensor_slices((x_train / 255.0, y_train)).shard(hvd.size(), hvd.rank())
        test = tf.data.Dataset.from_tensor_slices((x_test / 255.0, y_test)).batch(1000)
        return train.shuffle(10000).batch(64), test


    def main():
        hvd.init()
        train, test = datasets("/tmp/keras")
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        opt = tf.keras.optimizers.SGD(0.01 * hvd.size())
        for step, (x, y) in enumerate(train):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
        acc = tf.keras.metrics.SparseCategoricalAccuracy()
        for x, y in test:
            acc.update_state(y, model(x, training=False))
        if hvd.rank() == 0:
            print("test accuracy", float(acc.result()))
            model.save("mnist.keras")


    if __name__ == "__main__":
        main()
'''


def test_a_per_rank_cache_path_of_keras_load_data_still_gives_the_whole_test_set(tmp_path):
    path = tmp_path / "mnist.py"
    path.write_text(textwrap.dedent(KERAS_MNIST).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[8].verdict == OK, findings[8]
    assert "whole" in findings[8].evidence, findings[8]
