"""Step 6 on a script whose modules are absent (issue 39, item 2): a call of the project's own code that is
not there, handed both the model and the optimizer the training uses (`sync_initial_state(model,
optimizer)` after the first step), holds all a broadcast of the starting state needs: "cannot tell",
naming it, not "missing". Handed the model alone (a weight-decay term over its variables) it is no
broadcast: "missing" stays.

A GradientTape trainer written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check

from hvdkit.check.findings import UNKNOWN
from hvdkit.check.static import analyze

TAPE = Source(textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from nowcast.dist import sync_initial_state, l2_penalty


    def main():
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        rng = np.random.default_rng(0)
        x, y = rng.random((2048, 16), dtype=np.float32), rng.random((2048, 1), dtype=np.float32)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
        model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        first = True
        for epoch in range(3):
            for xb, yb in ds:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((model(xb) - yb) ** 2) + l2_penalty(model.trainable_variables)
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                if first:
                    SYNC
                    first = False
            mean = hvd.allreduce(loss, name="loss")
            if hvd.rank() == 0:
                print(epoch, float(mean))
                model.save_weights("net.weights.h5")


    if __name__ == "__main__":
        main()
""").lstrip())


def test_an_absent_call_handed_model_and_optimizer_may_broadcast(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TAPE.replace("SYNC", "sync_initial_state(model, optimizer)"))
    findings, _, _ = analyze(str(path))
    assert findings[6].verdict == UNKNOWN and "`sync_initial_state(...)`" in findings[6].evidence


def test_an_absent_call_handed_the_model_alone_is_no_broadcast(tmp_path):
    crash, flagged = check(tmp_path, TAPE.replace("SYNC", "print(len(model.trainable_variables))"))
    assert flagged == {6: "missing"}
