"""Step 2 on TensorFlow: CUDA_VISIBLE_DEVICES written from the local rank pins a rank's GPU only before
TensorFlow enumerates the GPUs; CUDA reads the variable once, when `tf.config.list_physical_devices("GPU")`
(or a tensor, a data set, a layer) first needs it. Written after, it changes nothing: every rank keeps every
GPU and TensorFlow places everything on the first. Correct twins: the variable set first (before any
enumeration), and `set_visible_devices(gpus[hvd.local_rank()])` after listing (the API made for that).

A Fashion-MNIST GradientTape trainer written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check, line_of

TAPE = Source(textwrap.dedent("""
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def main():
        hvd.init()
        PIN
        rng = np.random.default_rng(0)  # the same data on every rank: each takes its shard
        x = rng.random((4096, 28, 28, 1), dtype=np.float32)
        y = rng.integers(0, 10, 4096)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(4096).batch(64)
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(128, activation="relu"),
                                     tf.keras.layers.Dense(10)])
        opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        first = True
        for epoch in range(5):
            total, batches = 0.0, 0
            for xb, yb in ds:
                with tf.GradientTape() as tape:
                    loss = loss_fn(yb, model(xb, training=True))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                if first:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)
                    first = False
                total, batches = total + float(loss), batches + 1
            mean = hvd.allreduce(tf.constant(total / batches), name="loss")
            if hvd.rank() == 0:
                print(epoch, float(mean))
                model.save_weights("fashion.weights.h5")


    if __name__ == "__main__":
        main()
""").lstrip())

LISTED = """gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
"""


def test_the_variable_written_after_tensorflow_listed_the_gpus_is_wrong(tmp_path):
    broken = TAPE.replace("PIN\n", LISTED + '    os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())\n')
    crash, flagged = check(tmp_path, broken)
    assert (crash, flagged) == (None, {2: "wrong"})


def test_the_variable_written_first_and_the_api_after_listing_are_ok(tmp_path):
    first = TAPE.replace("PIN\n", 'os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())\n    ' + LISTED)
    assert check(tmp_path, first) == (None, {})
    api = TAPE.replace("PIN\n", LISTED + '    if gpus:\n'
                       '        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")\n')
    (tmp_path / "api").mkdir()
    assert check(tmp_path / "api", api) == (None, {})
    assert line_of(api, "set_visible_devices") > line_of(api, "list_physical_devices")
