"""A research project's process set-up (issue 39, class 1): `seg/dist.py` keeps the world size, the rank
and an `is_chief` flag as module globals that `setup()` sets under `global` after `hvd.init()`; the entry
script, in `tools/`, puts the repository on `sys.path` with `os.pardir` and reads `dist.world_size`,
`dist.rank` and `dist.is_chief` after calling `dist.setup()`. Those reads hold what setup() assigned
(Script.module_assignments), not the module's initial `world_size = 1`: the LR scaled by it, the shard and
the chief-only save are right. The broken twin's setup() forgets the `global` statement, so the globals keep
1 / 0 / True on every rank: the LR is not scaled, every rank reads the whole data and every rank saves.

Written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check_project

TRAIN = Source(textwrap.dedent("""
    import argparse
    import os
    import sys

    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir)))

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from seg import dist
    from seg.data import pipeline


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--base-lr", type=float, default=1e-3)
        p.add_argument("--epochs", type=int, default=5)
        p.add_argument("--out", default="runs")
        args = p.parse_args()
        dist.setup()
        rng = np.random.default_rng(0)
        x, y = rng.random((2048, 32), dtype=np.float32), rng.integers(0, 4, 2048)
        ds = pipeline(x, y, 32, dist.world_size, dist.rank)
        model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(4)])
        optimizer = tf.keras.optimizers.Adam(args.base_lr * dist.world_size)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        model.build((None, 32))
        optimizer.build(model.trainable_variables)
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
        for epoch in range(args.epochs):
            total, count = 0.0, 0
            for xb, yb in ds:
                with tf.GradientTape() as tape:
                    loss = loss_fn(yb, model(xb, training=True))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                total, count = total + float(loss) * len(yb), count + len(yb)
            sums = hvd.allreduce(tf.constant([total, count], tf.float64), op=hvd.Sum, name="loss")
            if dist.is_chief:
                print(epoch, float(sums[0] / sums[1]))
                model.save_weights(os.path.join(args.out, "net.weights.h5"))


    if __name__ == "__main__":
        main()
""").lstrip())

DIST = Source(textwrap.dedent("""
    import tensorflow as tf
    import horovod.tensorflow as hvd

    world_size = 1
    rank = 0
    is_chief = True


    def setup():
        global world_size, rank, is_chief
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        world_size, rank = hvd.size(), hvd.rank()
        is_chief = rank == 0
""").lstrip())

DATA = textwrap.dedent("""
    import tensorflow as tf


    def pipeline(x, y, batch, n_workers, worker):
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(n_workers, worker)
        return ds.shuffle(4096, seed=0).batch(batch)
""").lstrip()


def _files(dist):
    # no pyproject.toml: the project is found through the script's own sys.path entry (os.pardir)
    return {"tools/train.py": TRAIN, "seg/__init__.py": "", "seg/dist.py": dist, "seg/data.py": DATA}


def test_globals_set_by_setup_are_read_after_it(tmp_path):
    crash, flagged, findings = check_project(tmp_path, _files(DIST), script="tools/train.py")
    assert (crash, flagged) == (None, {}), {n: f.evidence for n, f in findings.items()}
    assert findings[3].file.endswith("seg/data.py")  # read through the sys.path entry


def test_globals_left_at_their_first_values_are_wrong(tmp_path):
    broken = DIST.replace("    global world_size, rank, is_chief\n", "")
    crash, flagged, _ = check_project(tmp_path, _files(broken), script="tools/train.py")
    assert {3, 4, 7} <= set(flagged)
