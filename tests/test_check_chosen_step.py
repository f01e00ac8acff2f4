"""A step function chosen by a condition: `step_fn = warmup_step if epoch < args.warmup_epochs else
train_step`, both closures a project factory returns. Each runs under its branch, so the pass sees the
training in both (issue 39, class 3: definitions, not spelling): a warm-up step whose tape Horovod does not
wrap steps with each rank's own gradients while the option is on (step 5 wrong); with both tapes wrapped
the script is right.

Written from scratch for these tests: a TF project whose step functions live in a package."""
from crash_scripts import Source, check_project

ENGINE = Source('''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def make_steps(model, optimizer):
        @tf.function
        def warmup_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            #WARMUP_TAPE
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return warmup_step, train_step
''')

TRAIN = '''
    """Regress with a warm-up phase: horovodrun -np 2 python train.py"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from reg.engine import make_steps

    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--warmup-epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.RandomState(0)
    x, y = rng.rand(1024, 8).astype("float32"), rng.rand(1024, 1).astype("float32")
    data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
    optimizer = keras.optimizers.Adam(args.lr * hvd.size())
    warmup_step, train_step = make_steps(model, optimizer)
    hvd.broadcast_variables(model.variables, root_rank=0)

    for epoch in range(args.epochs):
        step_fn = warmup_step if epoch < args.warmup_epochs else train_step
        total, n = 0.0, 0
        for xb, yb in data:
            total, n = total + float(step_fn(xb, yb)), n + 1
        pair = hvd.allreduce(tf.constant([total, n], tf.float64), op=hvd.Sum, name="loss")
        if hvd.rank() == 0:
            print(epoch, float(pair[0] / pair[1]))
            model.save_weights("reg.weights.h5")
'''


def project(engine):
    return {"train.py": TRAIN, "reg/__init__.py": "", "reg/engine.py": engine}


def test_a_chosen_warmup_step_with_an_unwrapped_tape_is_wrong(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project(ENGINE.replace("#WARMUP_TAPE", "pass")))
    assert crash is None and flagged == {5: "wrong"}
    assert "engine.py" in findings[5].evidence


def test_chosen_steps_that_both_wrap_their_tapes_are_right(tmp_path):
    crash, flagged, _ = check_project(tmp_path, project(ENGINE.replace(
        "#WARMUP_TAPE", "tape = hvd.DistributedGradientTape(tape)")))
    assert crash is None and flagged == {}
