"""Step 6: a helper of a module that is not there, handed the models after the first step, may broadcast.

Horovod's TF idiom broadcasts after the first update (`if epoch == 0 and step == 0:`). A statement call into
the project's absent helper module at that point, handed a list of the models and the optimizer, is all a
broadcast needs: "cannot tell", not "no broadcast". Handed only the loss, it cannot broadcast anything: the
missing broadcast is reported. Written from scratch for these tests: a BYOL-style tape loop whose helper
package is left out (the entry script alone, as a flat copy is read)."""
from hvdkit.check import FLAGGED, UNKNOWN

from crash_scripts import check_project

ENTRY = '''
    """Self-supervised tabular pretraining.  horovodrun -np 4 python pretrain.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from sslkit import helpers


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = np.random.default_rng(0).normal(size=(8192, 12)).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank()).shuffle(2048).repeat().batch(64)
        online = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(8)])
        target = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(8)])
        online.build((None, 12))
        target.build((None, 12))
        target.set_weights(online.get_weights())
        optimizer = keras.optimizers.Adam(1e-3 * hvd.size())

        @tf.function
        def train_step(v):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(online(v + 0.1, training=True) - target(v)))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, online.trainable_variables)
            optimizer.apply_gradients(zip(grads, online.trainable_variables))
            return loss

        it = iter(ds)
        for epoch in range(3):
            for step in range(100):
                loss = train_step(next(it))
                if epoch == 0 and step == 0:
                    {call}
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {float(loss):.4f}")
                online.save_weights("online.weights.h5")


    if __name__ == "__main__":
        main()
'''


def step6(tmp_path, call):
    files = {"pretrain.py": ENTRY.replace("{call}", call), "sslkit/__init__.py": ""}
    return check_project(tmp_path, files, script="pretrain.py")[2][6]


def test_an_absent_helper_handed_the_models_after_the_first_step_may_broadcast(tmp_path):
    for call in ("helpers.sync_variables([online, target], optimizer)", "helpers.sync_variables([online, target])"):
        f = step6(tmp_path, call)
        assert f.verdict == UNKNOWN and "sync_variables" in f.evidence, (call, f)


def test_an_absent_helper_handed_only_the_loss_cannot(tmp_path):
    assert step6(tmp_path, "helpers.log_first(loss)").verdict in FLAGGED
