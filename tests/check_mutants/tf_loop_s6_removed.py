"""Mutant of base_tf_loop.py, step 6 removed: no broadcast.

    mpirun -n 2 python tests/check_mutants/base_tf_loop.py --ckpt-dir /tmp
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-dir", default=".")
    args = parser.parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(1)

    x = np.random.default_rng(0).normal(size=(64, 8)).astype("float32")
    y = (x.sum(1) > 0).astype("int64")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(32).batch(16)
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(2)])
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.SGD(learning_rate=0.01 * hvd.size())
    checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)

    @tf.function
    def train_step(features, labels, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(features, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    step = 0
    for epoch in range(2):
        loss_sum, count = 0.0, 0
        for features, labels in dataset:
            loss = train_step(features, labels, step == 0)
            step += 1
            loss_sum, count = loss_sum + float(loss) * len(labels), count + len(labels)
        totals = hvd.allreduce(tf.constant([loss_sum, count], tf.float64), op=hvd.Sum)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {float(totals[0] / totals[1]):.4f}")
            checkpoint.write(os.path.join(args.ckpt_dir, "ckpt"))


if __name__ == "__main__":
    main()
