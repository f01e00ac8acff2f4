"""Step 2: a TF 1 script ported to TensorFlow 2 keeps its GPU setup, `config.gpu_options.visible_device_list
= str(hvd.local_rank())` on a `tf.compat.v1.Session(config=config)` that nothing uses, while the model trains
eagerly: the setting reaches no op, TF 2 sees every GPU and each rank of a node takes GPU 0 (wrong). With
eager turned off and the session running the graph, the same config pins (ok).

Written from scratch for these tests: a flat TF port."""
import textwrap

from hvdkit.check import OK, WRONG
from hvdkit.check.static import analyze

SCRIPT = '''
    """Keyword spotter, ported from TF 1.14.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    {head}
    hvd.init()
    config = tf.compat.v1.ConfigProto()
    config.gpu_options.allow_growth = True
    config.gpu_options.visible_device_list = str(hvd.local_rank())
    sess = tf.compat.v1.Session(config=config)
    {extra}
    x = np.random.rand(4096, 40).astype("float32")[hvd.rank()::hvd.size()]
    y = np.random.randint(0, 12, 4096)[hvd.rank()::hvd.size()]
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(12)])
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for step in range(0, len(x), 64):
        with tf.GradientTape() as tape:
            loss = loss_fn(y[step:step + 64], model(x[step:step + 64], training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if step == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
    if hvd.rank() == 0:
        model.save_weights("kws.weights.h5")
'''


def step2(tmp_path, head="", extra=""):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{head}", head).replace("{extra}", extra)).lstrip("\n"))
    return analyze(str(path))[0][2]


def test_a_pinned_session_nothing_runs_pins_nothing_in_eager_tf2(tmp_path):
    f = step2(tmp_path)
    assert f.verdict == WRONG and "visible_device_list" in f.evidence, f


def test_the_session_used_in_graph_mode_pins(tmp_path):
    f = step2(tmp_path, head="tf.compat.v1.disable_eager_execution()", extra="sess.run(tf.compat.v1.no_op())")
    assert f.verdict == OK, f
