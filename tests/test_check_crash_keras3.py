"""`hvdkit check`'s crash finding on Keras 3 calls that raise when they are made (hvdkit/check/crash_keras.py):
a ModelCheckpoint whose model path ends in neither .keras nor .h5, and keras.optimizers.legacy.
Each broken trainer beside correct twins that must not be reported: the right endings, an ending text before
it could complete, a flag that is not a literal, a project that asks TF for Keras 2."""
import textwrap

from crash_scripts import Source, check, check_project, line_of

TRAINER = Source(textwrap.dedent("""
    import argparse
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def build_model(n_features, width):
        inputs = tf.keras.Input(shape=(n_features,))
        x = tf.keras.layers.Dense(width, activation="relu")(inputs)
        outputs = tf.keras.layers.Dense(1, activation="sigmoid")(x)
        return tf.keras.Model(inputs, outputs)


    def make_dataset(n_rows, n_features, batch_size):
        x = np.random.rand(n_rows, n_features).astype("float32")
        y = (x.sum(axis=1) > n_features / 2).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        return ds.shard(hvd.size(), hvd.rank()).shuffle(1024).batch(batch_size).repeat()


    def make_callbacks(out_dir, lr):
        callbacks = [
            hvd.callbacks.BroadcastGlobalVariablesCallback(0),
            hvd.callbacks.MetricAverageCallback(),
            hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=2),
        ]
        if hvd.rank() == 0:
            os.makedirs(out_dir, exist_ok=True)
            path = os.path.join(out_dir, "ckpt-{epoch:02d}.weights.h5")
            callbacks.append(tf.keras.callbacks.ModelCheckpoint(path, save_weights_only=True))
        return callbacks


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--out", default="checkpoints")
        parser.add_argument("--lr", type=float, default=1e-3)
        parser.add_argument("--epochs", type=int, default=3)
        parser.add_argument("--batch-size", type=int, default=64)
        args = parser.parse_args()
        hvd.init()
        lr = args.lr * hvd.size()
        model = build_model(16, 32)
        opt = tf.keras.optimizers.Adam(learning_rate=lr)
        model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="binary_crossentropy", metrics=["accuracy"])
        model.fit(make_dataset(4096, 16, args.batch_size), steps_per_epoch=4096 // (args.batch_size * hvd.size()),
                  epochs=args.epochs, callbacks=make_callbacks(args.out, lr), verbose=1 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
"""))
WEIGHTS = '"ckpt-{epoch:02d}.weights.h5"'
CHECKPOINT = "callbacks.append(tf.keras.callbacks.ModelCheckpoint("


def test_the_correct_keras3_trainer_has_no_crash(tmp_path):
    assert check(tmp_path, TRAINER)[0] is None


def test_a_model_checkpoint_not_ending_in_keras_or_h5_raises(tmp_path):
    broken = TRAINER.replace(WEIGHTS, '"ckpt-{epoch:02d}"').replace(", save_weights_only=True", "")
    crash, flagged = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, CHECKPOINT)
    assert flagged[7] == "wrong"  # the checkpoint's own call raises: no checkpoint is ever written
    assert crash["error"] == "ValueError: The filepath provided must end in `.keras` (Keras model format). " \
                             "Received: filepath=...ckpt-{epoch:02d}"
    hdf5 = TRAINER.replace(WEIGHTS, '"model.hdf5"').replace("save_weights_only=True", "save_weights_only=False")
    assert check(tmp_path, hdf5)[0]["line"] == line_of(hdf5, CHECKPOINT)  # tried: .hdf5 is rejected too
    by_format = TRAINER.replace(f"os.path.join(out_dir, {WEIGHTS})", '"{}/model_{{epoch}}".format(out_dir)').replace(
        ", save_weights_only=True", "")
    assert check(tmp_path, by_format)[0]["line"] == line_of(by_format, CHECKPOINT)


def test_checkpoint_paths_keras_3_accepts_or_that_are_not_known_are_not_crashes(tmp_path):
    for ending, weights in (('"model-{epoch:02d}.keras"', ""), ('"model.h5"', ""),
                            ('"model.weights.h5"', ""), ('"model.weights.h5"', ", save_weights_only=True")):
        fine = TRAINER.replace(WEIGHTS, ending).replace(", save_weights_only=True", weights)
        assert check(tmp_path, fine)[0] is None, (ending, weights)
    completed = TRAINER.replace(f"os.path.join(out_dir, {WEIGHTS})", 'f"{out_dir}/ckpt.{suffix}5"').replace(
        "def make_callbacks(out_dir, lr):", "def make_callbacks(out_dir, lr, suffix=\"weights.h\"):")
    assert check(tmp_path, completed)[0] is None  # text before the literal "5" may complete ".weights.h5"
    flagged = TRAINER.replace("save_weights_only=True", "save_weights_only=weights_only").replace(
        "def make_callbacks(out_dir, lr):", "def make_callbacks(out_dir, lr, weights_only=False):").replace(
        WEIGHTS, '"model.keras"')
    assert check(tmp_path, flagged)[0] is None  # which check runs depends on a value not written there
    switch = 'import argparse\nimport os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n'
    legacy_keras = TRAINER.replace("import argparse\n", switch).replace(WEIGHTS, '"ckpt.hdf5"').replace(
        ", save_weights_only=True", "")
    assert check(tmp_path, legacy_keras)[0] is None  # tf.keras may be Keras 2 (tf_keras) there


ADAM = "opt = tf.keras.optimizers.Adam(learning_rate=lr)"


def test_a_keras_2_legacy_optimizer_raises_when_it_is_made(tmp_path):
    broken = TRAINER.replace(ADAM, "opt = tf.keras.optimizers.legacy.Adam(learning_rate=lr)")
    crash, _ = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "opt = tf.keras.optimizers.legacy.Adam(")
    assert crash["error"].startswith("ImportError: `keras.optimizers.legacy` is not supported in Keras 3.")
    imported = TRAINER.replace("import horovod.tensorflow.keras as hvd\n",
                               "import horovod.tensorflow.keras as hvd\nfrom keras.optimizers.legacy import SGD\n"
                               ).replace(ADAM, "opt = SGD(lr, momentum=0.9)")
    assert check(tmp_path, imported)[0]["line"] == line_of(imported, "opt = SGD(")
    gone = TRAINER.replace(ADAM, "opt = tf.keras.optimizers.legacy.Nadam(learning_rate=lr)")
    assert check(tmp_path, gone)[0]["error"] == \
        "AttributeError: module 'keras.optimizers.legacy' has no attribute 'Nadam'"


def test_naming_a_legacy_optimizer_without_making_one_is_not_a_crash(tmp_path):
    checked = TRAINER.replace(
        "    model.compile(", "    if isinstance(opt, tf.keras.optimizers.legacy.Optimizer):\n"
                         "        raise SystemExit(\"a Keras 2 optimizer\")\n    model.compile(")
    assert check(tmp_path, checked)[0] is None
    switched = TRAINER.replace("import argparse\n", "import argparse\nimport os\nos.environ.setdefault("
                               "\"TF_USE_LEGACY_KERAS\", \"1\")\n").replace(
        ADAM, "opt = tf.keras.optimizers.legacy.Adam(learning_rate=lr)")
    assert check(tmp_path, switched)[0] is None


def test_a_version_shim_that_imports_the_legacy_optimizer_on_keras_2_only_is_not_a_crash(tmp_path):
    # the project's compat module: `if KERAS3: from keras.optimizers import SGD` / `else: from
    # keras.optimizers.legacy import SGD`. The stub is made only on the Keras 2 branch: no crash is certain
    shim = "import keras\nKERAS3 = int(keras.__version__.split(\".\")[0]) >= 3\nif KERAS3:\n" \
           "    from keras.optimizers import SGD\nelse:\n    from keras.optimizers.legacy import SGD\n"
    train = TRAINER.replace("import horovod.tensorflow.keras as hvd\n",
                            "import horovod.tensorflow.keras as hvd\nfrom trainlib.compat import SGD\n").replace(
        ADAM, "opt = SGD(lr, momentum=0.9)")
    files = {"train.py": train, "trainlib/__init__.py": "", "trainlib/compat.py": shim}
    assert check_project(tmp_path / "shim", files)[0] is None
    files["trainlib/compat.py"] = shim.replace("    from keras.optimizers import SGD\n",
                                               "    from keras.optimizers.legacy import SGD\n")
    crash = check_project(tmp_path / "legacy", files)[0]
    assert crash is not None and crash["line"] == line_of(train, "opt = SGD("), crash
