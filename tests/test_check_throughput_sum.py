"""A synthetic benchmark sums each rank's mean throughput over the ranks (op=hvd.Sum) and prints it as the
job's "Total img/sec": rates add, so the sum is right (blind set ze, cscs). The same sum printed as the
average over the ranks is hvd.size() times too large.

Written from scratch for these tests: a flat TF 2 benchmark harness."""
import textwrap

from hvdkit.check import OK, WRONG
from hvdkit.check.static import analyze

SCRIPT = '''
    """Synthetic ResNet-ish benchmark.  srun -n 8 python bench.py"""
    import time

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    model = tf.keras.Sequential([tf.keras.Input((32, 32, 3)), tf.keras.layers.Conv2D(16, 3),
                                 tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(10)])
    opt = tf.keras.optimizers.SGD(0.01 * hvd.size())
    data = tf.random.uniform([64, 32, 32, 3])
    target = tf.random.uniform([64], maxval=10, dtype=tf.int64)


    @tf.function
    def step(first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(target, model(data), True))
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)


    step(True)
    img_secs = []
    for _ in range(10):
        t0 = time.time()
        for _ in range(10):
            step(False)
        img_secs.append(64 * 10 / (time.time() - t0))
    rate = hvd.allreduce(tf.constant(float(np.mean(img_secs))), op=hvd.Sum).numpy()
    if hvd.rank() == 0:
        print(f"WORDS on {hvd.size()} GPUs: {rate:.1f}")
'''


def check(tmp_path, words):
    path = tmp_path / "bench.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("WORDS", words)).lstrip())
    return analyze(str(path))[0][8]


def test_a_total_throughput_is_rightly_summed(tmp_path):
    assert check(tmp_path, "Total img/sec").verdict == OK


def test_the_same_sum_printed_as_an_average_is_too_large(tmp_path):
    f8 = check(tmp_path, "Average img/sec per GPU")
    assert f8.verdict == WRONG, f8
