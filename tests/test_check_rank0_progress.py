"""Step 8 when rank 0 alone evaluates the whole test set: its accuracy is the job's. Rank 0's own progress
prints inside the training loop (`if step % 100 == 0 and hvd.rank() == 0: print(loss)`) are progress, not
the job's metric (the labels' convention), so they do not make the step wrong; an epoch's training loss of
rank 0's own shard printed as the result beside it still does.

A tape-trained MNIST-style classifier written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check

SCRIPT = Source(textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    rng = np.random.default_rng(0)
    x, y = rng.random((6000, 784), dtype=np.float32), rng.integers(0, 10, 6000)
    x_test, y_test = rng.random((1000, 784), dtype=np.float32), rng.integers(0, 10, 1000)
    train = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).repeat().batch(64)
    test = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(500)
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"), tf.keras.layers.Dense(10)])
    opt = tf.keras.optimizers.SGD(0.01 * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


    @tf.function
    def train_step(xb, yb, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    for step, (xb, yb) in enumerate(train.take(2000 // hvd.size())):
        loss = train_step(xb, yb, step == 0)
        PROGRESS
    EPOCH_LOG
    if hvd.rank() == 0:
        acc = tf.keras.metrics.SparseCategoricalAccuracy()
        for xt, yt in test:
            acc.update_state(yt, model(xt, training=False))
        print("test accuracy:", float(acc.result()))
        model.save_weights("mnist.weights.h5")
""").lstrip())

PROGRESS = "if step % 100 == 0 and hvd.rank() == 0:\n        print(step, float(loss))"


def test_rank0_progress_beside_its_whole_evaluation_is_ok(tmp_path):
    ok = SCRIPT.replace("PROGRESS", PROGRESS).replace("EPOCH_LOG\n", "")
    assert check(tmp_path, ok) == (None, {})


def test_rank0s_own_training_loss_reported_as_the_result_is_missing(tmp_path):
    broken = SCRIPT.replace("    PROGRESS\n", "").replace(
        "EPOCH_LOG", 'if hvd.rank() == 0:\n    print("final training loss:", float(loss))')
    assert check(tmp_path, broken) == (None, {8: "missing"})
