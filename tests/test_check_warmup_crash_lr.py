"""A crashing warmup callback is the crash's finding; the LR step is judged by the LR's value.

`hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs)` with
`--warmup-epochs` never declared raises AttributeError when the callbacks are built: the crash is reported on
top of the report. The LR given to the optimizer (`args.lr * hvd.size()`) is scaled, and step 4 says so, as
the corpus labels such scripts; an unscaled LR is still flagged. Written from scratch for these tests: a
tabular Keras fit script."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

SCRIPT = '''
    """Tabular fold.  horovodrun -np 4 python keras_fit.py --fold 0"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    ap = argparse.ArgumentParser()
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=10)
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.default_rng(args.fold)
    x = rng.normal(size=(8192, 24)).astype("float32")
    y = (x[:, 0] > 0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(2048).batch(128)
    model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
    lr = {lr}
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr)),
                  loss="binary_crossentropy", metrics=["accuracy"])
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs, verbose=1),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(f"fold{args.fold}.keras"))
    model.fit(ds, epochs=args.epochs, callbacks=callbacks, verbose=hvd.rank() == 0)
'''


def check(tmp_path, lr):
    crash, _, findings = check_project(tmp_path, {"keras_fit.py": SCRIPT.replace("{lr}", lr)}, script="keras_fit.py")
    return crash, findings[4]


def test_the_crash_is_reported_and_the_scaled_lr_is_ok(tmp_path):
    crash, f = check(tmp_path, "args.lr * hvd.size()")
    assert crash is not None and "warmup_epochs" in crash["error"], crash
    assert f.verdict == OK, f


def test_an_unscaled_lr_beside_the_crash_is_still_flagged(tmp_path):
    crash, f = check(tmp_path, "args.lr")
    assert crash is not None and f.verdict in FLAGGED, f
