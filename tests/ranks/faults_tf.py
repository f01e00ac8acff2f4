"""Rank script for tests/test_faults.py: TensorFlow/Keras 3 training in which one rank fails on purpose.

    mpirun -n 2 python tests/ranks/faults_tf.py raise|kill [--rank R] [--step S]
"""
import time

import tensorflow as tf
import keras

import hvdkit.tensorflow as hk
from faults_common import maybe_fail, options, ready


def main():
    args = options(__doc__)
    ctx = hk.init(seed=0, threads=1)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    opt = keras.optimizers.SGD(0.1)
    hk.broadcast_state(model, opt)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x))
        grads = hk.DistributedGradientTape(tape).gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    ready(ctx)
    for i in range(100000):
        maybe_fail(ctx, args, i)
        step(tf.random.normal([8, 4]))
        time.sleep(0.01)
    print("NEVER", ctx.rank, flush=True)


if __name__ == "__main__":
    main()
