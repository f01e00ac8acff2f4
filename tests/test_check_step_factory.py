"""A training step made by a factory of the project (`train_step = make_train_step(G, D, g_opt, d_opt)`, the
factory defining a `@tf.function` closure and returning it): calling the name runs the closure, so the walk
enters it and its tapes are read. Both tapes wrapped: ok; one left plain: wrong; none: missing.

Written from scratch for these tests: a TF 2 GAN project with the step factory in a package module."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

from crash_scripts import check_project

ENTRY = '''
    """DCGAN on 32x32 tiles.  horovodrun -np 4 python train.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    from gan.nets import critic, generator
    from gan.steps import make_train_step

    images = tf.random.uniform([2048, 32, 32, 3], seed=1)
    data = tf.data.Dataset.from_tensor_slices(images).shard(hvd.size(), hvd.rank()).shuffle(512).batch(64)
    G, D = generator(), critic()
    g_opt = tf.keras.optimizers.Adam(2e-4 * hvd.size(), beta_1=0.5)
    d_opt = tf.keras.optimizers.Adam(2e-4 * hvd.size(), beta_1=0.5)
    train_step = make_train_step(G, D, g_opt, d_opt, 64)
    for epoch in range(10):
        total = tf.zeros(2)
        for i, batch in enumerate(data):
            g_loss, d_loss = train_step(batch)
            if epoch == 0 and i == 0:
                hvd.broadcast_variables(G.variables + D.variables, root_rank=0)
                hvd.broadcast_variables(g_opt.variables + d_opt.variables, root_rank=0)
            total += tf.stack([g_loss, d_loss])
        total = hvd.allreduce(total)
        if hvd.rank() == 0:
            print(epoch, total.numpy())
            G.save_weights(f"g-{epoch}.weights.h5")
'''

NETS = '''
    import tensorflow as tf


    def generator():
        return tf.keras.Sequential([tf.keras.layers.Dense(32 * 32 * 3, activation="tanh"),
                                    tf.keras.layers.Reshape((32, 32, 3))])


    def critic():
        return tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
'''

STEPS = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd

    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


    def make_train_step(G, D, g_opt, d_opt, noise_dim):
        @tf.function
        def train_step(real):
            z = tf.random.normal([tf.shape(real)[0], noise_dim])
            with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
                fake = G(z, training=True)
                real_logits, fake_logits = D(real, training=True), D(fake, training=True)
                g_loss = bce(tf.ones_like(fake_logits), fake_logits)
                d_loss = bce(tf.ones_like(real_logits), real_logits) + bce(tf.zeros_like(fake_logits), fake_logits)
            {wrap_g}
            {wrap_d}
            g_opt.apply_gradients(zip(g_tape.gradient(g_loss, G.trainable_variables), G.trainable_variables))
            d_opt.apply_gradients(zip(d_tape.gradient(d_loss, D.trainable_variables), D.trainable_variables))
            return g_loss, d_loss
        return train_step
'''
WRAP_G = "g_tape = hvd.DistributedGradientTape(g_tape)"
WRAP_D = "d_tape = hvd.DistributedGradientTape(d_tape)"


def step5(tmp_path, wrap_g, wrap_d):
    steps = STEPS.replace("{wrap_g}", wrap_g).replace("{wrap_d}", wrap_d)
    files = {"train.py": ENTRY, "gan/__init__.py": "", "gan/nets.py": NETS, "gan/steps.py": steps}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[5]


def test_both_tapes_of_the_factorys_step_wrapped_is_ok(tmp_path):
    f = step5(tmp_path, WRAP_G, WRAP_D)
    assert f.verdict == OK, f
    assert "DistributedGradientTape" in f.evidence, f


def test_no_tape_of_the_factorys_step_wrapped_is_flagged(tmp_path):
    f = step5(tmp_path, "pass", "pass")
    assert f.verdict in FLAGGED, f


def test_one_tape_of_the_factorys_step_left_plain_is_flagged(tmp_path):
    f = step5(tmp_path, WRAP_G, "pass")
    assert f.verdict in FLAGGED, f


PAIR = '''
    """Road segmentation, custom loop.  horovodrun -np 4 python train.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    x = tf.random.uniform([1024, 16], seed=1)
    y = tf.cast(tf.reduce_sum(x, 1) > 8, tf.int64)
    data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(2)])
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


    def make_steps(model, opt, loss_fn):
        @tf.function
        def train_step(x, y, first_batch):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            {wrap}
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if first_batch:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            return loss

        @tf.function
        def eval_step(x, y):
            return tf.reduce_mean(tf.cast(tf.argmax(model(x), 1) == y, tf.float32))

        return train_step, eval_step


    train_step, eval_step = make_steps(model, opt, loss_fn)
    for epoch in range(3):
        for step, (xb, yb) in enumerate(data):
            loss = train_step(xb, yb, epoch == 0 and step == 0)
    acc = hvd.allreduce(eval_step(x, y))
    if hvd.rank() == 0:
        print("accuracy", float(acc))
        model.save("road.keras")
'''


def test_the_steps_of_a_factory_returning_a_tuple_are_walked(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(PAIR.replace("{wrap}", WRAP_G.replace("g_tape", "tape"))).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[5].verdict == OK and findings[6].verdict == OK, findings
    path.write_text(textwrap.dedent(PAIR.replace("{wrap}", "pass")).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[5].verdict in FLAGGED, findings[5]


FLAGGED_FACTORY = '''
    """Disc localisation.  horovodrun -np 4 python train.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def make_train_step(model, optimizer, distributed=False):
        @tf.function
        def train_step(x, c):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.abs(model(x, training=True) - c))
            if distributed:
                tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return train_step


    hvd.init()
    x = tf.random.uniform([1024, 8], seed=2)
    c = tf.random.uniform([1024, 2], seed=3)
    data = tf.data.Dataset.from_tensor_slices((x, c)).shard(hvd.size(), hvd.rank()).batch(32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(2)])
    optimizer = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    train_step = make_train_step(model, optimizer{flag})
    for i, (xb, cb) in enumerate(data):
        loss = train_step(xb, cb)
        if i == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
    if hvd.rank() == 0:
        model.save("disc.keras")
'''


def test_a_closures_wrap_behind_the_factorys_flag_left_off_is_wrong(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(FLAGGED_FACTORY.replace("{flag}", "")).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[5].verdict in FLAGGED and "distributed" in findings[5].evidence, findings[5]
    path.write_text(textwrap.dedent(FLAGGED_FACTORY.replace("{flag}", ", distributed=True")).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    assert findings[5].verdict == OK, findings[5]
