"""Step 2: a GPU picked in a loop over the GPUs by comparing the loop's index to the local rank
(`for i, gpu in enumerate(gpus): if i == hvd.local_rank(): tf.config.set_visible_devices(gpu, "GPU")`) is
chosen by the local rank; compared to the global rank it is the global rank's fault on 2+ nodes, and with
no comparison every rank takes the last GPU listed.

Written from scratch for these tests: a Keras fit script."""
import pytest

from hvdkit.check import OK, WRONG

from crash_scripts import Source, check

SCRIPT = Source('''
    """Radar nowcasting.  horovodrun -np 8 python train.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    hvd.init()
    for i, gpu in enumerate(tf.config.list_physical_devices("GPU")):
        {pick}
            tf.config.experimental.set_memory_growth(gpu, True)
            tf.config.set_visible_devices(gpu, "GPU")
    x = np.random.default_rng(0).normal(size=(4096, 32)).astype("float32")[hvd.rank()::hvd.size()]
    y = x.sum(1, keepdims=True)
    model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())), loss="mse")
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("nowcast.keras"))
    model.fit(x, y, batch_size=64, epochs=3, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
''')


@pytest.mark.parametrize("pick, verdict", [
    ("if i == hvd.local_rank():", OK),
    ("if hvd.local_rank() == i:", OK),
    ("if i == hvd.rank():", WRONG),
    ("if True:", WRONG),
])
def test_a_gpu_picked_by_the_loop_index(tmp_path, pick, verdict):
    findings = check(tmp_path, SCRIPT.replace("{pick}", pick))[1]
    assert findings.get(2, OK) == verdict, findings
