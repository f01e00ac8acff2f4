"""Step 3 tells the training data from the held-out data by what the code does with them, not by their names:
a loop that calls the Keras model in inference mode (`model(x, training=False)`, directly or in a function
it calls) evaluates, and batches drawn with `next(it)` in a `for _ in range(steps)` loop around the
optimizer step are training data. The names here (`first`, `second`, `chunk`, `run`) say nothing.

Written from scratch for these tests: a TF 2 GradientTape script over file lists, the shape of
survey-imaging code on a cluster."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Tile classifier.  horovodrun -np 4 python train.py --root /data/tiles"""
    import argparse
    import glob
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/data/tiles")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--epochs", type=int, default=5)
    args = p.parse_args()

    hvd.init()
    for g in tf.config.list_physical_devices("GPU")[hvd.local_rank():hvd.local_rank() + 1]:
        tf.config.set_visible_devices(g, "GPU")


    def chunk(items):
        return items[hvd.rank()::hvd.size()]


    def pipeline(names, keep):
        ds = tf.data.Dataset.from_tensor_slices(names)
        {keep_line}
        ds = ds.map(lambda n: tf.numpy_function(lambda s: np.load(s.decode()), [n], tf.float32))
        return ds.map(lambda a: (a[:-1], a[-1])).batch(args.batch)


    first = sorted(glob.glob(os.path.join(args.root, "a", "*.npy")))
    second = chunk(sorted(glob.glob(os.path.join(args.root, "b", "*.npy"))))
    {first_line}
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    score = tf.keras.metrics.SparseCategoricalAccuracy()


    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss


    def run(x, y):
        score.update_state(y, model(x, training=False))


    {train_loop}
    for x, y in pipeline(second, keep=False):
        run(x, y)
    hits = hvd.allreduce(score.result())
    if hvd.rank() == 0:
        print(f"accuracy {float(hits):.4f}")
        model.save_weights("tiles.weights.h5")
'''

FOR_LOOP = '''first_batch = True
    for epoch in range(args.epochs):
        for x, y in pipeline(first, keep=True):
            step(x, y)
            if first_batch:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
                first_batch = False'''

NEXT_LOOP = '''it = iter(pipeline(first, keep=True).repeat())
    for i in range(args.epochs * 100):
        x, y = next(it)
        step(x, y)
        if i == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)'''


def step3(tmp_path, keep_line="pass", first_line="pass", train_loop=FOR_LOOP):
    source = SCRIPT.replace("{keep_line}", keep_line).replace("{first_line}", first_line)
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source.replace("{train_loop}", train_loop)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[3]


def test_a_discarded_training_shard_is_flagged_beside_a_sharded_inference_set(tmp_path):
    # The only partition used is the second list's, which the loop calling model(..., training=False) reads.
    f = step3(tmp_path, keep_line="if keep:\n            ds.shard(hvd.size(), hvd.rank())")
    assert f.verdict in FLAGGED, f


def test_a_used_training_shard_is_ok(tmp_path):
    f = step3(tmp_path, keep_line="if keep:\n            ds = ds.shard(hvd.size(), hvd.rank())")
    assert f.verdict == OK, f


def test_batches_drawn_by_next_in_a_range_loop_are_the_training_data(tmp_path):
    # One helper cuts both lists; the training half is read by next(it) in `for i in range(...)`.
    f = step3(tmp_path, first_line="first = chunk(first)", train_loop=NEXT_LOOP)
    assert f.verdict == OK, f


def test_whole_training_data_drawn_by_next_is_flagged(tmp_path):
    f = step3(tmp_path, train_loop=NEXT_LOOP)
    assert f.verdict in FLAGGED, f
