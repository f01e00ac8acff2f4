"""A guard read on the first step: in `for epoch in range(start_epoch, n)`, `epoch == start_epoch` holds on
the first step whatever start_epoch was restored to. So a broadcast under `if epoch == start_epoch and step
== 0:` runs: broadcast_global_variables there is TensorFlow 2's eager RuntimeError (a crash, step 6 wrong),
and broadcast_variables there is the starting broadcast (ok).

Written from scratch for these tests: a TF 2 GradientTape regression loop that resumes from a checkpoint."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Vote-fraction regression.  mpirun -np 8 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(8192, 32)).astype("float32")
    y = rng.uniform(size=(8192, 4)).astype("float32")
    data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).repeat().batch(64)
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(4)])
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, "./ckpt", max_to_keep=2)
    ckpt.restore(manager.latest_checkpoint)
    start_epoch = int(ckpt.epoch.numpy())


    @tf.function
    def train_step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(a, training=True) - b))
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss


    it = iter(data)
    for epoch in range(start_epoch, 30):
        for step in range(8192 // (64 * hvd.size())):
            loss = train_step(*next(it))
            if epoch == start_epoch and step == 0:
                {sync}
        if hvd.rank() == 0:
            ckpt.epoch.assign(epoch + 1)
            manager.save()
            print(epoch, float(hvd.allreduce(loss)))
'''


def check(tmp_path, sync):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{sync}", sync)).lstrip("\n"))
    findings, _, info = analyze(str(path))
    return findings[6], info.get("crash")


def test_broadcast_global_variables_on_the_restored_first_step_crashes(tmp_path):
    f, crash = check(tmp_path, "hvd.broadcast_global_variables(0)")
    assert crash is not None and "eager" in crash["error"], crash
    assert f.verdict in FLAGGED, f


def test_broadcast_variables_on_the_restored_first_step_is_the_starting_broadcast(tmp_path):
    f, crash = check(tmp_path, "hvd.broadcast_variables(model.variables, root_rank=0)\n"
                     "                hvd.broadcast_variables(opt.variables, root_rank=0)")
    assert crash is None, crash
    assert f.verdict == OK, f
