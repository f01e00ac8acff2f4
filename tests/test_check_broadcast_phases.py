"""Step 6 in two shapes blind sets showed.

- A broadcast between two training phases (an encoder pre-trained with its own loop, then the whole model
  trained after `hvd.broadcast_variables(...)`): the broadcast starts the second phase from rank 0's
  weights; it is not "after the training". A broadcast after the last training loop still is.
- A flat script whose model is made by a module that is not there and handed, with the optimizer, to an
  absent step factory (`make_train_step(model, optimizer, loss_fn)`): that code may broadcast, so step 6
  cannot tell; it is not "missing".

Written from scratch for these tests."""
import textwrap

from hvdkit.check import FLAGGED, OK, UNKNOWN
from hvdkit.check.static import analyze

PHASES = '''
    """Load forecasting: encoder pre-training, then the forecaster.  horovodrun -np 4 python train.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    x = tf.random.uniform([2048, 24], seed=3)
    data = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank()).batch(64)
    encoder = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu")])
    head = tf.keras.layers.Dense(24)
    model = tf.keras.Sequential([encoder, tf.keras.layers.Dense(1)])
    pre_opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())

    for xb in data:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(head(encoder(xb)) - xb))
        tape = hvd.DistributedGradientTape(tape)
        variables = encoder.trainable_variables + head.trainable_variables
        pre_opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    model(x[:1])
    hvd.broadcast_variables(model.variables + head.variables, root_rank=0)
    {second_phase}
    if hvd.rank() == 0:
        model.save("forecast.keras")
'''

SECOND = '''for xb in data:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb)[:, 0] - tf.reduce_mean(xb, 1)))
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))'''


def phases(tmp_path, second):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(PHASES).lstrip("\n").replace("{second_phase}", second))
    findings, _, _ = analyze(str(path))
    return findings[6]


def test_a_broadcast_that_starts_the_second_phase_is_not_after_the_training(tmp_path):
    f = phases(tmp_path, SECOND)
    assert f.verdict == OK, f


def test_a_broadcast_after_the_last_training_loop_is_wrong(tmp_path):
    f = phases(tmp_path, "pass")
    assert f.verdict in FLAGGED and "after the training loop" in f.evidence, f


FLAT = '''
    """Image classification from TFRecords.  horovodrun -np 8 python train.py"""
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from visionkit.input_pipeline import build_dataset
    from visionkit.model import SmallNet
    from visionkit.steps import make_train_step

    hvd.init()
    train_ds = build_dataset("train-*", 64)
    model = SmallNet(10)
    optimizer = keras.optimizers.SGD(learning_rate=0.1 * hvd.size(), momentum=0.9)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_step = make_train_step({handed})
    for epoch in range(10):
        for step, (images, labels) in enumerate(train_ds):
            loss = train_step(images, labels, epoch == 0 and step == 0)
    if hvd.rank() == 0:
        model.save("net.keras")
'''


def test_an_absent_factory_handed_the_model_and_optimizer_may_broadcast(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(FLAT.replace("{handed}", "model, optimizer, loss_fn")).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[6].verdict == UNKNOWN and "make_train_step" in findings[6].evidence, findings[6]


def test_an_absent_factory_handed_the_loss_alone_cannot_broadcast_the_model(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(FLAT.replace("{handed}", "loss_fn")).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[6].verdict != OK, findings[6]


CRITIC = '''
    """WGAN, custom loop.  horovodrun -np 4 python wgan.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    data = iter(tf.data.Dataset.from_tensor_slices(tf.random.normal([4096, 8])).shard(hvd.size(), hvd.rank())
                .shuffle(1024).batch(64).repeat())
    critic = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(1e-4 * hvd.size())


    def make_steps(critic, opt):
        @tf.function
        def critic_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(x))
            tape = hvd.DistributedGradientTape(tape)
            opt.apply_gradients(zip(tape.gradient(loss, critic.trainable_variables), critic.trainable_variables))
            return loss

        return critic_step, None


    critic_step, _ = make_steps(critic, opt)
    first = True
    for step in range(1000):
        for _ in range(5):
            loss = critic_step(next(data))
        if first:
            hvd.broadcast_variables(critic.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
            first = False
    if hvd.rank() == 0:
        critic.save("critic.keras")
'''


def test_a_broadcast_in_the_training_loop_after_the_first_passs_critic_steps_is_a_first_step_sync(tmp_path):
    path = tmp_path / "wgan.py"
    path.write_text(textwrap.dedent(CRITIC).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert "after the training loop" not in findings[6].evidence, findings[6]
