"""`hvdkit check` on Horovod's module returned by a project function (`hvd = setup()` with `setup()` calling
hvd.init(), pinning the GPU and returning the module): every `hvd.*` after it is Horovod's. Its broken twin
returns something else, so `hvd` there is no module and Horovod's calls are not seen. From the blind read of
set zzzza (a robotics repository), where the checker raised five false alarms on one such script."""
import textwrap

from crash_scripts import Source, check_project

FILES = {rel: Source(textwrap.dedent(text)) for rel, text in {
    "train.py": """
        import os

        import keras
        import numpy as np
        import tensorflow as tf

        from bc.hvd_setup import setup

        hvd = setup()
        x = np.load("data/frames.npy").astype("float32")
        y = np.load("data/actions.npy").astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(512).batch(32)
        model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(4)])
        opt = keras.optimizers.Adam(learning_rate=1e-3 * hvd.size())
        model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join("out", "bc.keras")))
        model.fit(ds, epochs=3, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
        """,
    "bc/__init__.py": "",
    "bc/hvd_setup.py": """
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd


        def setup():
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            return hvd
        """,
}.items()}


def test_horovods_module_returned_by_a_setup_function_is_horovod(tmp_path):
    crash, flagged, findings = check_project(tmp_path / "returned", FILES)
    assert crash is None and flagged == {}, {n: findings[n].evidence for n in flagged}


def test_a_setup_function_that_returns_no_module_leaves_hvd_unknown(tmp_path):
    files = dict(FILES)
    files["bc/hvd_setup.py"] = files["bc/hvd_setup.py"].replace("    return hvd\n", "    return hvd.rank()\n")
    _, flagged, _ = check_project(tmp_path / "rank", files)
    # `hvd` is then an int: neither `hvd.DistributedOptimizer` nor its broadcast callback is Horovod's
    assert flagged.get(5) == "missing" and flagged.get(6) == "missing"
