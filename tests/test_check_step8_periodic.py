"""Step 8: the last batch's value averaged after the loop that made it. After an epoch's loop over the
batches, `hvd.allreduce(loss)` reports the last batch as the epoch's loss: wrong. Inside the training loop, a
log every N steps (`if step % log_every == 0:`) of the step just taken is what it says it is, even when that
step ran an inner loop (a GAN's critic updates `for _ in range(n_critic)`): not flagged.

Written from scratch for these tests: a TF 2 WGAN-style loop with a critic and a generator step."""
import textwrap

from hvdkit.check.findings import WRONG
from hvdkit.check.static import analyze

HEAD = textwrap.dedent("""
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--n-critic", type=int, default=5)
    p.add_argument("--log-every", type=int, default=100)
    args = p.parse_args()

    data = tf.data.Dataset.from_tensor_slices(tf.random.normal([4096, 8])).shard(hvd.size(), hvd.rank())
    data = iter(data.shuffle(1024).batch(64).repeat())
    critic = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(1e-4 * hvd.size())


    @tf.function
    def critic_step(x, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(critic(x))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, critic.trainable_variables)
        opt.apply_gradients(zip(grads, critic.trainable_variables))
        if first:
            hvd.broadcast_variables(critic.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

""").lstrip()

PERIODIC = HEAD + textwrap.dedent("""
    step = 0
    while step < args.steps:
        for i in range(args.n_critic):
            d_loss = critic_step(next(data), step == 0 and i == 0)
        step += 1
        if step % args.log_every == 0:
            d_avg = hvd.allreduce(d_loss, name="d_loss")
            if hvd.rank() == 0:
                print(f"step {step}: critic loss {float(d_avg):.4f}")
""")

EPOCHS = HEAD + textwrap.dedent("""
    for epoch in range(args.epochs):
        for i in range(args.steps // args.epochs):
            d_loss = critic_step(next(data), epoch == 0 and i == 0)
        d_avg = hvd.allreduce(d_loss, name="d_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: critic loss {float(d_avg):.4f}")
""")


def _step8(tmp_path, source):
    path = tmp_path / "train.py"
    path.write_text(source)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"wgan\"\n")
    findings, _, _ = analyze(str(path))
    return findings[8]


def test_the_last_batch_averaged_after_an_epoch_loop_is_wrong(tmp_path):
    f = _step8(tmp_path, EPOCHS)
    assert f.verdict == WRONG
    assert "last batch" in f.evidence


def test_a_log_every_n_steps_of_the_step_just_taken_is_not_flagged(tmp_path):
    f = _step8(tmp_path, PERIODIC)
    assert f.verdict not in ("missing", "wrong"), f.evidence
