"""`hvdkit check`, step 6, on a TF tape loop that trains two Keras models through one list of variables
(`variables = phi.trainable_variables + rho.trainable_variables`, then `tape.gradient(loss, variables)`):
both are trained, so both must start from rank 0's weights. A first-batch broadcast of one of them leaves
the other's random initialisation on every rank.

Written from scratch for these tests: a Deep Sets jet tagger (a particle network and a jet network)."""
import textwrap

import pytest

from hvdkit.check.findings import OK, WRONG
from hvdkit.check.static import analyze

SCRIPT = textwrap.dedent("""
    import horovod.tensorflow as hvd
    import tensorflow as tf


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = tf.random.normal((2048, 30, 4))
        y = tf.one_hot(tf.random.uniform((2048,), maxval=5, dtype=tf.int32), 5)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(64)
        phi = tf.keras.Sequential([tf.keras.Input((30, 4)), tf.keras.layers.Dense(32, activation="relu")])
        rho = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(5)])
        variables = phi.trainable_variables + rho.trainable_variables
        opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        for epoch in range(10):
            for step, (xb, yb) in enumerate(ds):
                with tf.GradientTape() as tape:
                    logits = rho(tf.reduce_sum(phi(xb, training=True), axis=1), training=True)
                    loss = tf.reduce_mean(tf.keras.losses.categorical_crossentropy(yb, logits, from_logits=True))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, variables)
                opt.apply_gradients(zip(grads, variables))
                if epoch == 0 and step == 0:
                    BROADCAST
                    hvd.broadcast_variables(opt.variables, root_rank=0)
            mean = hvd.allreduce(loss)
            if hvd.rank() == 0:
                print(epoch, float(mean))
                phi.save("phi.keras")
                rho.save("rho.keras")


    if __name__ == "__main__":
        main()
""").lstrip()


@pytest.mark.parametrize("broadcast, verdict", [
    ("hvd.broadcast_variables(phi.variables, root_rank=0)", WRONG),  # rho keeps each rank's own start
    ("hvd.broadcast_variables(phi.variables + rho.variables, root_rank=0)", OK),
])
def test_both_models_a_tape_trains_through_one_list_must_be_broadcast(tmp_path, broadcast, verdict):
    (tmp_path / "train.py").write_text(SCRIPT.replace("BROADCAST", broadcast))
    f = analyze(str(tmp_path / "train.py"))[0][6]
    assert f.verdict == verdict
    if verdict == WRONG:
        assert "`rho` is trained" in f.evidence
