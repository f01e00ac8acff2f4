"""DL lab, sheet 5 (solution as handed in + the Horovod bonus): Fashion-MNIST CNN, Keras 3.

Bonus task: "make it run on 4 GPUs with horovod.tensorflow.keras without changing the
hyper-parameters of exercise 2". We sum the gradients instead of averaging them, which for plain
SGD is the same as averaging with an lr multiplied by the number of workers.

    horovodrun -np 4 python lab5_train.py --epochs 15
"""
import argparse
import json
import os

import horovod.tensorflow.keras as hvd
import keras
import numpy as np
import tensorflow as tf


class JsonHistory(keras.callbacks.Callback):
    """Appends one JSON line per epoch (plots for the report are made from this file)."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_epoch_end(self, epoch, logs=None):
        with open(self.path, "a") as f:
            f.write(json.dumps({"epoch": epoch, **{k: float(v) for k, v in (logs or {}).items()}}) + "\n")


def get_data():
    (x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
    x_train = (x_train[..., None] / 255.0).astype("float32")
    x_test = (x_test[..., None] / 255.0).astype("float32")
    return (x_train, y_train), (x_test, y_test)


def build_model():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.3),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.02)      # exercise 2, single GPU
    parser.add_argument("--out", default="results_lab5")
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x_train, y_train), (x_test, y_test) = get_data()
    # cut to a multiple of the number of workers, then every size-th image -> equal parts
    n = len(x_train) - len(x_train) % hvd.size()
    x_train, y_train = x_train[hvd.rank():n:hvd.size()], y_train[hvd.rank():n:hvd.size()]

    model = build_model()
    opt = keras.optimizers.SGD(learning_rate=args.lr, momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, op=hvd.Sum)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=3),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "lab5.keras"), save_best_only=True))
        callbacks.append(JsonHistory(os.path.join(args.out, "history.jsonl")))

    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs,
              validation_data=(x_test, y_test), callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        loss, acc = model.evaluate(x_test, y_test, verbose=0)
        print(f"test loss {loss:.4f}  test accuracy {acc:.4f}")
        pred = np.argmax(model.predict(x_test, verbose=0), axis=1)
        print("confusion matrix:\n", tf.math.confusion_matrix(y_test, pred).numpy())


if __name__ == "__main__":
    main()
