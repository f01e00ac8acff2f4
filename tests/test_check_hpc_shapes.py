"""`hvdkit check`, step 5, on a communication-reduction experiment from a scaling study (blind set zzb,
read at b542c3f): the tape is wrapped in hvd.DistributedGradientTape only when `step % sync_every == 0`,
while the gradients are applied on every step. With `--sync-every` above 1 by default (here read from an
environment variable's default), the other steps apply each rank's own gradients: wrong. With 1, every step
averages: right. Written from scratch for this test; it fails with the rule taken back."""
import textwrap

from crash_scripts import Source, check

SYNC = Source(textwrap.dedent('''
    import argparse
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    ap = argparse.ArgumentParser()
    ap.add_argument("--sync-every", type=int, default=int(os.environ.get("SYNC_EVERY", DEFAULT)))
    ap.add_argument("--steps", type=int, default=400)
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.default_rng(0)
    x = rng.random((4096, 8)).astype("float32")
    y = x @ rng.random((8, 1)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(1024).repeat().batch(64)
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.SGD(0.01 * hvd.size())
    hvd.broadcast_variables(model.variables, root_rank=0)


    @tf.function
    def train_step(xb, yb, sync):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        if sync:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss


    it, total = iter(ds), 0.0
    for step in range(args.steps):
        xb, yb = next(it)
        total += float(train_step(xb, yb, step % args.sync_every == 0))
        if step == 0:
            hvd.broadcast_variables(opt.variables, root_rank=0)
    mean = hvd.allreduce(tf.constant(total / args.steps), name="loss")
    if hvd.rank() == 0:
        print(float(mean))
        model.save_weights("emulator.weights.h5")
''').lstrip())


def test_a_tape_wrapped_one_step_in_k_is_wrong(tmp_path):
    crash, flagged = check(tmp_path, SYNC.replace("DEFAULT", "4"))
    assert crash is None and flagged == {5: "wrong"}


def test_a_tape_wrapped_on_every_step_is_right(tmp_path):
    crash, flagged = check(tmp_path, SYNC.replace("DEFAULT", "1"))
    assert crash is None and flagged == {}
