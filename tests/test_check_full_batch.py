"""Full-batch training (a graph network's step on all of its rank's labelled nodes, every epoch): the
averaged gradient is the whole training set's, as in the sequential run, so the LR tuned for one process is
right unscaled (blind set zc, gcn); scaled it is accepted too, as the corpus labels it. Cutting minibatches
out of the rank's part (`part[i:i + 64]`) is no full batch: an unscaled LR is then missing its scaling.

Written from scratch for these tests: a flat TF 2 node-classification loop."""
import textwrap

from hvdkit.check import MISSING, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Node classification, full batch.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.RandomState(42)
    x = tf.constant(rng.rand(2708, 64).astype("float32"))
    y = tf.constant(rng.randint(0, 7, 2708))
    train_idx = rng.permutation(2708)[:1400]
    part = train_idx[hvd.rank()::hvd.size()]
    model = tf.keras.Sequential([tf.keras.Input((64,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(7)])
    opt = tf.keras.optimizers.Adam(LR)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


    @tf.function
    def train_step(idx, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(tf.gather(y, idx), tf.gather(model(x, training=True), idx))
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    for epoch in range(200):
        BODY
        mean = hvd.allreduce(loss)
        if hvd.rank() == 0 and epoch % 10 == 0:
            print(epoch, float(mean))
            model.save_weights("gcn.weights.h5")
'''

WHOLE = "loss = train_step(part, epoch == 0)"
BATCHES = """for i in range(0, len(part), 64):
            loss = train_step(part[i:i + 64], epoch == 0 and i == 0)"""


def check(tmp_path, lr, body):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("LR", lr).replace("BODY", body)).lstrip())
    return analyze(str(path))[0][4]


def test_full_batch_with_the_sequential_lr_is_right(tmp_path):
    f4 = check(tmp_path, "0.01", WHOLE)
    assert f4.verdict == OK and "full-batch" in f4.evidence, f4


def test_full_batch_with_a_scaled_lr_is_accepted(tmp_path):
    assert check(tmp_path, "0.01 * hvd.size()", WHOLE).verdict == OK


def test_minibatches_cut_from_the_part_need_the_scaling(tmp_path):
    assert check(tmp_path, "0.01", BATCHES).verdict == MISSING
