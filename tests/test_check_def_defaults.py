"""`hvdkit check` on a project whose data module asks Horovod in a function's default values (`def
sharded(path, num_shards=hvd.size(), index=hvd.rank())`). Python evaluates default values when the `def`
runs, that is when the module is imported: imported at the top of the entry script, before main() calls
hvd.init(), the import raises ValueError ("Horovod has not been initialized"): a crash, and step 1 wrong
at that line. The shard the function takes with those defaults is the rank's own (step 3 reads the values
a parameter holds when the call leaves it out). Defaults of None, filled in the body, and an import made
after hvd.init() are right.

Written from scratch for these tests: a sea-ice concentration regressor, package `icecast`."""
import textwrap

from hvdkit.check.findings import OK, WRONG
from hvdkit.check.static import analyze

ENTRY = textwrap.dedent("""
    import argparse

    import horovod.tensorflow.keras as hvd
    import keras
    import tensorflow as tf

    TOP_IMPORT


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--data", default="/lustre/icecast/train.npz")
        ap.add_argument("--epochs", type=int, default=40)
        args = ap.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        LATE_IMPORT
        train = sharded(args.data).shuffle(2048).batch(32)
        model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size()))
        model.compile(optimizer=opt, loss="mse")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint("icecast.keras"))
        model.fit(train, epochs=args.epochs, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
""").lstrip()

DATA = textwrap.dedent("""
    import horovod.tensorflow.keras as hvd
    import numpy as np
    import tensorflow as tf


    def sharded(path, SIGNATURE):
        FILL
        blob = np.load(path)
        ds = tf.data.Dataset.from_tensor_slices((blob["x"], blob["y"]))
        return ds.shard(num_shards, index)
""").lstrip()

EAGER = ("num_shards=hvd.size(), index=hvd.rank()", "pass")
LAZY = ("num_shards=None, index=None", "num_shards = hvd.size() if num_shards is None else num_shards\n"
        "    index = hvd.rank() if index is None else index")
IMPORT = "from icecast.data import sharded"


def _check(tmp_path, data, top=True):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"icecast\"\n")
    entry = ENTRY.replace("TOP_IMPORT", IMPORT if top else "").replace("LATE_IMPORT", "pass" if top else IMPORT)
    (tmp_path / "train.py").write_text(entry)
    (tmp_path / "icecast").mkdir()
    (tmp_path / "icecast" / "__init__.py").write_text("")
    (tmp_path / "icecast" / "data.py").write_text(DATA.replace("SIGNATURE", data[0]).replace("FILL", data[1]))
    findings, _, report = analyze(str(tmp_path / "train.py"))
    return findings, report["crash"]


def test_horovod_asked_in_defaults_at_import_before_init_crashes_and_init_is_wrong(tmp_path):
    findings, crash = _check(tmp_path, EAGER)
    assert crash is not None and crash["error"].startswith("ValueError")
    assert crash["file"] == "icecast/data.py" and crash["line"] == 6
    assert findings[1].verdict == WRONG and "before init()" in findings[1].evidence


def test_the_shard_taken_with_those_defaults_is_the_ranks_own(tmp_path):
    assert _check(tmp_path, EAGER)[0][3].verdict == OK


def test_defaults_of_none_filled_in_the_body_are_right(tmp_path):
    findings, crash = _check(tmp_path, LAZY)
    assert crash is None
    assert findings[1].verdict == OK and findings[3].verdict == OK


def test_the_same_module_imported_after_init_is_right(tmp_path):
    findings, crash = _check(tmp_path, EAGER, top=False)
    assert crash is None
    assert findings[1].verdict == OK and findings[3].verdict == OK
