"""Elastic Horovod + Keras fit: Fashion-MNIST MLP/CNN, survives preemptible nodes.

    horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
        python 08_keras_elastic_fashion.py
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser(description="elastic fashion-mnist")
parser.add_argument("--epochs", type=int, default=24)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--base-lr", type=float, default=0.001)
parser.add_argument("--ckpt-dir", default="./elastic_ckpt")
parser.add_argument("--cache", default=None, help="path to fashion_mnist .npz if offline")


def get_data(cache):
    if cache and os.path.exists(cache):
        with np.load(cache) as f:
            return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
    return tf.keras.datasets.fashion_mnist.load_data()


def build(lr):
    model = tf.keras.Sequential([
        tf.keras.layers.Input(shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(64, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dropout(0.3),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], experimental_run_tf_function=False)
    return model


def main():
    args = parser.parse_args()
    hvd.init()

    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x_train, y_train), (x_test, y_test) = get_data(args.cache)
    x_train = (x_train[..., None] / 255.0).astype("float32")
    x_test = (x_test[..., None] / 255.0).astype("float32")
    n_train = len(x_train)

    # every worker streams the full set with its own shuffle order; an "epoch" is
    # n_train / (batch * world) steps per worker, recomputed when the world changes
    dataset = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
               .repeat()
               .shuffle(10000, seed=1000 + hvd.rank())
               .batch(args.batch_size))
    test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(512)

    model = build(args.base_lr * hvd.size())
    state = hvd.elastic.KerasState(model, batch=0, epoch=0)

    def on_state_reset():
        # world size changed: rescale the learning rate
        tf.keras.backend.set_value(state.model.optimizer.lr, args.base_lr * hvd.size())

    state.register_reset_callbacks([on_state_reset])

    callbacks = [
        hvd.elastic.CommitStateCallback(state),
        hvd.elastic.UpdateBatchStateCallback(state),
        hvd.elastic.UpdateEpochStateCallback(state),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(args.ckpt_dir, "epoch-{epoch:02d}.h5"), save_weights_only=True))

    @hvd.elastic.run
    def train(state):
        steps = n_train // (args.batch_size * hvd.size())
        state.model.fit(dataset,
                        steps_per_epoch=steps,
                        epochs=args.epochs - state.epoch,
                        callbacks=callbacks,
                        verbose=1 if hvd.rank() == 0 else 0)

    train(state)

    if hvd.rank() == 0:
        loss, acc = state.model.evaluate(test_ds, verbose=0)
        print(f"test loss {loss:.4f}  acc {acc:.4f}")


if __name__ == "__main__":
    main()
