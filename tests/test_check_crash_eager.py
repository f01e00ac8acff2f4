"""Crash finding: TF 1's `hvd.broadcast_global_variables(0)` kept in TensorFlow 2 code that runs eagerly
raises RuntimeError in Horovod 0.28.1 (tried on this machine: horovod.tensorflow and horovod.tensorflow.keras
alike), and step 6 is wrong with it. Not a crash when the code turns eager off, nor inside a tf.function
(traced in a graph it raises nothing), nor for `hvd.broadcast_variables`.

Written from scratch for these tests: a TF 2 port of a TF 1 training script, flat."""
import textwrap

from hvdkit.check import WRONG
from hvdkit.check.static import analyze

SCRIPT = '''
    """WaveNet-lite, ported from TF 1.13.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    {head}
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = np.random.rand(4096, 64).astype("float32")[hvd.rank()::hvd.size()]
    y = np.random.rand(4096, 1).astype("float32")[hvd.rank()::hvd.size()]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024).batch(32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(learning_rate=1e-3 * hvd.size())
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)


    {deco}
    def train_step(xb, yb, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        {inside}
        return loss


    for epoch in range(10):
        for step, (xb, yb) in enumerate(ds):
            loss = train_step(xb, yb, epoch == 0 and step == 0)
            if epoch == 0 and step == 0:
                {outside}
        loss = hvd.allreduce(loss, name="loss")
        if hvd.rank() == 0:
            print(epoch, float(loss))
            ckpt.save("ckpt/wavenet")
'''

GLOBAL = "hvd.broadcast_global_variables(0)"
VARIABLES = "hvd.broadcast_variables(model.variables, root_rank=0); hvd.broadcast_variables(opt.variables, root_rank=0)"


def check(tmp_path, head="", deco="", inside="pass", outside="pass"):
    text = SCRIPT.replace("{head}", head).replace("{deco}", deco).replace("{inside}", inside)
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(text.replace("{outside}", outside)).lstrip("\n"))
    findings, _, info = analyze(str(path))
    return info["crash"], findings[6]


def line_of(tmp_path, text):
    return next(i for i, ln in enumerate((tmp_path / "train.py").read_text().splitlines(), 1) if text in ln)


def test_the_global_broadcast_run_eagerly_crashes(tmp_path):
    crash, f6 = check(tmp_path, outside=GLOBAL)
    assert crash and crash["line"] == line_of(tmp_path, GLOBAL) and crash["error"].startswith("RuntimeError"), crash
    assert f6.verdict == WRONG, f6


def test_with_eager_turned_off_it_does_not(tmp_path):
    crash, _ = check(tmp_path, head="tf.compat.v1.disable_eager_execution()", outside=GLOBAL)
    assert crash is None, crash


def test_inside_a_tf_function_it_does_not_raise(tmp_path):
    crash, _ = check(tmp_path, deco="@tf.function", inside=f"if first: {GLOBAL}")
    assert crash is None, crash


def test_broadcasting_the_variables_is_fine(tmp_path):
    crash, f6 = check(tmp_path, outside=VARIABLES)
    assert crash is None and f6.verdict not in (WRONG,), (crash, f6)
