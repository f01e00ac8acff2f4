"""Step 6 judged in the default run (issue 39, item 4): a broadcast that runs only when an option that is
off by default is set (`if cfg.get("resume"):` with `--resume ""`) leaves a run with the defaults starting
its replicas from different weights: wrong, with the option named. The options read through
`cfg = vars(parser.parse_args())` have their declared defaults as the dict's entries.

A Keras segmentation project written from scratch for these tests: train.py and seg/callbacks.py."""
import textwrap

from crash_scripts import Source, check_project

TRAIN = Source(textwrap.dedent("""
    import argparse

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from seg.callbacks import build_callbacks


    def get_cfg():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=40)
        ap.add_argument("--lr", type=float, default=2e-4)
        ap.add_argument("--out-dir", default="out/unet")
        ap.add_argument("--resume", default="", help="weights to start from")
        return vars(ap.parse_args())


    def main():
        cfg = get_cfg()
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        rng = np.random.default_rng(0)
        x, y = rng.random((1024, 64, 64, 3), dtype=np.float32), rng.integers(0, 2, (1024, 64, 64, 1))
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(8)
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
                                     tf.keras.layers.Conv2D(1, 1, activation="sigmoid")])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(cfg["lr"] * hvd.size()))
        model.compile(optimizer=opt, loss="binary_crossentropy")
        if cfg["resume"] and hvd.rank() == 0:
            model.load_weights(cfg["resume"])
        model.fit(ds, epochs=cfg["epochs"], callbacks=build_callbacks(cfg), verbose=2 if hvd.rank() == 0 else 0)
        if hvd.rank() == 0:
            model.save(cfg["out_dir"] + "/unet.keras")


    if __name__ == "__main__":
        main()
""").lstrip())

CALLBACKS = Source(textwrap.dedent("""
    import horovod.tensorflow.keras as hvd


    def build_callbacks(cfg):
        cbs = [hvd.callbacks.MetricAverageCallback()]
        BROADCAST
        return cbs
""").lstrip())


def _project(broadcast):
    return {"train.py": TRAIN, "seg/__init__.py": "", "seg/callbacks.py": CALLBACKS.replace("BROADCAST", broadcast)}


def test_a_broadcast_only_on_resume_is_wrong_by_default(tmp_path):
    off = 'if cfg.get("resume"):\n        cbs.insert(0, hvd.callbacks.BroadcastGlobalVariablesCallback(0))'
    crash, flagged, findings = check_project(tmp_path, _project(off))
    assert (crash, flagged) == (None, {6: "wrong"})
    assert "off by default" in findings[6].evidence and findings[6].file == "seg/callbacks.py"


def test_a_broadcast_on_every_run_is_ok(tmp_path):
    always = "cbs.insert(0, hvd.callbacks.BroadcastGlobalVariablesCallback(0))"
    assert check_project(tmp_path, _project(always))[:2] == (None, {})
