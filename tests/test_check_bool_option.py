"""Step 6: a callbacks helper of the project adds Horovod's broadcast callback only `if resume:`, and the
script passes `resume=bool(args.resume)` with `--resume` defaulting to None (a path when given). With the
defaults the broadcast never runs: wrong, the option named. Passed `resume=True`, it runs.

Written from scratch for these tests: `train.py` and a `tilekit` package with the callbacks helper."""
import textwrap

from crash_scripts import check_project
from hvdkit.check import OK, WRONG

CALLBACKS = '''
    import keras
    import horovod.tensorflow.keras as hvd


    def build_callbacks(workdir, resume=False):
        cbs = []
        if resume:
            cbs.append(hvd.callbacks.BroadcastGlobalVariablesCallback(0))
        cbs.append(hvd.callbacks.MetricAverageCallback())
        if hvd.rank() == 0:
            cbs.append(keras.callbacks.ModelCheckpoint(workdir + "/last.weights.h5", save_weights_only=True))
        return cbs
'''

TRAIN = '''
    """Tile autoencoder.  horovodrun -np 4 python train.py --workdir runs/ae"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from tilekit.callbacks import build_callbacks

    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", default="runs/ae")
    ap.add_argument("--resume", default=None)
    args = ap.parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = np.random.rand(4096, 64).astype("float32")[hvd.rank()::hvd.size()]
    model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(64)])
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())), loss="mse")
    if args.resume:
        model.load_weights(args.resume)
    model.fit(x, x, batch_size=32, epochs=10, callbacks=build_callbacks(args.workdir, resume={resume}),
              verbose=2 if hvd.rank() == 0 else 0)
'''


def step6(tmp_path, resume):
    files = {"train.py": TRAIN.replace("{resume}", resume), "setup.py": "", "tilekit/__init__.py": "",
             "tilekit/callbacks.py": CALLBACKS}
    _, _, findings = check_project(tmp_path, {k: textwrap.dedent(v).lstrip("\n") for k, v in files.items()})
    return findings[6]


def test_a_broadcast_behind_bool_of_an_option_that_defaults_to_none_is_off(tmp_path):
    f = step6(tmp_path, "bool(args.resume)")
    assert f.verdict == WRONG and "resume" in f.evidence, f


def test_a_broadcast_passed_true_runs(tmp_path):
    assert step6(tmp_path, "True").verdict == OK
