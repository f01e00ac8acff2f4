"""MNIST CNN with a custom training loop, Horovod data parallel.

Run: horovodrun -np 4 python 01_mnist_gradtape_firstbatch.py --epochs 5
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def parse_args():
    p = argparse.ArgumentParser(description="TF2 MNIST + Horovod")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--ckpt-dir", type=str, default="./checkpoints/mnist")
    p.add_argument("--data-dir", type=str, default=os.path.expanduser("~/.keras/datasets"))
    return p.parse_args()


def setup_gpus():
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def get_dataset(batch_size, data_dir):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data(
        path=os.path.join(data_dir, "mnist-%d.npz" % hvd.rank()))
    x_train = (x_train[..., None] / 255.0).astype("float32")
    x_test = (x_test[..., None] / 255.0).astype("float32")

    train = tf.data.Dataset.from_tensor_slices((x_train, y_train.astype("int64")))
    train = train.shard(hvd.size(), hvd.rank())
    train = train.shuffle(10000).batch(batch_size).prefetch(tf.data.AUTOTUNE)

    test = tf.data.Dataset.from_tensor_slices((x_test, y_test.astype("int64")))
    test = test.batch(512)
    return train, test


def build_model():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(64, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Dropout(0.25),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dropout(0.5),
        tf.keras.layers.Dense(10),
    ])


def main():
    args = parse_args()
    hvd.init()
    setup_gpus()

    train_ds, test_ds = get_dataset(args.batch_size, args.data_dir)
    model = build_model()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    # linear scaling rule
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())

    checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(checkpoint, args.ckpt_dir, max_to_keep=3)

    train_loss = tf.keras.metrics.Mean()
    train_acc = tf.keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def train_step(images, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        # Broadcast after the first step so that optimizer slots exist too
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables(), root_rank=0)
        train_loss.update_state(loss)
        train_acc.update_state(labels, logits)
        return loss

    for epoch in range(args.epochs):
        t0 = time.time()
        train_loss.reset_states()
        train_acc.reset_states()
        for batch, (images, labels) in enumerate(train_ds):
            train_step(images, labels, batch == 0 and epoch == 0)

        # average epoch metrics across workers
        avg_loss = hvd.allreduce(train_loss.result(), name="avg_loss")
        avg_acc = hvd.allreduce(train_acc.result(), name="avg_acc")

        # every worker evaluates the full test set with identical weights
        test_acc = tf.keras.metrics.SparseCategoricalAccuracy()
        for images, labels in test_ds:
            test_acc.update_state(labels, model(images, training=False))

        if hvd.rank() == 0:
            print("epoch %d  loss %.4f  acc %.4f  test_acc %.4f  (%.1fs)" % (
                epoch, avg_loss.numpy(), avg_acc.numpy(), test_acc.result().numpy(), time.time() - t0))
            manager.save()


if __name__ == "__main__":
    main()
