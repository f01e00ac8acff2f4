"""A GradientTape trainer written for the `hvdkit check --run` tests (tests/test_check_run_cpu.py).

The correct twin of tf_pinned_never_broadcast.py: one GPU pinned per rank without asking whether there
is one, MNIST through keras.datasets, and the broadcast after the first batch (batches count from 1).
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

FIRST_BATCH = 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--out", default=".")
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
    images = tf.cast(x_train[..., None], tf.float32) / 255.0
    data = tf.data.Dataset.from_tensor_slices((images, tf.cast(y_train, tf.int64)))
    data = data.shard(hvd.size(), hvd.rank()).shuffle(512, seed=7).batch(32)

    model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Conv2D(4, 3, activation="relu"),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.Adam(learning_rate=1e-3 * hvd.size())

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for epoch in range(args.epochs):
        total, count = 0.0, 0
        for batch, (x, y) in enumerate(data, start=1):
            loss = train_step(x, y)
            if batch == FIRST_BATCH:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            total, count = total + float(loss), count + 1
        mean = hvd.allreduce(tf.constant(total / count), op=hvd.Average)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: mean loss over ranks {float(mean):.4f}")
            model.save_weights(os.path.join(args.out, "pinned.weights.h5"))


if __name__ == "__main__":
    main()
