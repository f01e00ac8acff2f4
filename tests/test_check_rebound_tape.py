"""An actor-critic update: the critic's tape is wrapped (`tape = hvd.DistributedGradientTape(tape)`), then a
second `with tf.GradientTape() as tape:` binds the same name to a new, plain tape for the actor. The actor's
gradients are this rank's own: step 5 is wrong (blind set zc, ddpg). Wrapping the second tape too is fine.

Written from scratch for these tests: a flat TF 2 DDPG-style loop."""
import textwrap

from hvdkit.check import OK, WRONG
from hvdkit.check.static import analyze

SCRIPT = '''
    """Actor-critic on a toy task.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.default_rng(1234 + hvd.rank())
    actor = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="tanh")])
    critic = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    pi_opt = tf.keras.optimizers.Adam(1e-4 * hvd.size())
    q_opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())


    @tf.function
    def update(o, a, r, first):
        with tf.GradientTape() as tape:
            q_loss = tf.reduce_mean((critic(tf.concat([o, a], 1)) - r) ** 2)
        tape = hvd.DistributedGradientTape(tape)
        q_opt.apply_gradients(zip(tape.gradient(q_loss, critic.trainable_variables), critic.trainable_variables))
        with tf.GradientTape() as tape:
            pi_loss = -tf.reduce_mean(critic(tf.concat([o, actor(o)], 1)))
        WRAP
        pi_opt.apply_gradients(zip(tape.gradient(pi_loss, actor.trainable_variables), actor.trainable_variables))
        if first:
            hvd.broadcast_variables(actor.variables + critic.variables, root_rank=0)
            hvd.broadcast_variables(pi_opt.variables + q_opt.variables, root_rank=0)
        return q_loss


    for step in range(1000):
        o = tf.constant(rng.standard_normal((64, 3)), tf.float32)
        a = tf.constant(rng.uniform(-1, 1, (64, 1)), tf.float32)
        r = tf.constant(rng.standard_normal((64, 1)), tf.float32)
        loss = update(o, a, r, step == 0)
        if step % 100 == 0:
            mean = hvd.allreduce(loss)
            if hvd.rank() == 0:
                print(step, float(mean))
                actor.save_weights("actor.weights.h5")
'''


def check(tmp_path, wrap):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("WRAP", wrap)).lstrip())
    return analyze(str(path))[0][5]


def test_a_plain_tape_bound_again_under_the_same_name_is_not_averaged(tmp_path):
    f5 = check(tmp_path, "pass")
    assert f5.verdict == WRONG and "did not wrap" in f5.evidence, f5


def test_wrapping_the_second_tape_too_is_fine(tmp_path):
    assert check(tmp_path, "tape = hvd.DistributedGradientTape(tape)").verdict == OK
