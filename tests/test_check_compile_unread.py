"""Step 5, flat: a Keras model the script builds, compiled by the project's helper that is not at hand
(`compile_model(model, 1e-3 * hvd.size())`), then fit by the script. The optimizer, wrapped or not, is made
in the code not read: "cannot tell", naming compile_model, not "gradients are never averaged". Compiled by
the script itself with a plain optimizer, it is missing.

Written from scratch for these tests: a flat elastic-style Keras script whose `ecgkit` package is absent."""
import textwrap

from hvdkit.check import MISSING, UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = '''
    """ECG classifier.  horovodrun -np 4 python train.py"""
    import keras
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from ecgkit.data import load_npz
    from ecgkit.model import compile_model

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x, y = load_npz("data/ecg.npz")
    x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
    model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(5)])
    {compile}
    model.fit(x, y, batch_size=64, epochs=20, verbose=2 if hvd.rank() == 0 else 0,
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()])
'''


def step5(tmp_path, compile_line):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{compile}", compile_line)).lstrip("\n"))
    return analyze(str(path))[0][5]


def test_a_model_compiled_by_an_absent_helper_cannot_be_told(tmp_path):
    f = step5(tmp_path, "compile_model(model, 1e-3 * hvd.size())")
    assert f.verdict == UNKNOWN and "compile_model" in f.evidence, f


def test_a_model_compiled_here_with_a_plain_optimizer_is_missing_the_averaging(tmp_path):
    f = step5(tmp_path, 'model.compile(optimizer=keras.optimizers.Adam(1e-3 * hvd.size()), loss="mse")')
    assert f.verdict == MISSING, f
