"""Keras grid sweep, one fit per grid point; launch the whole sweep once with horovodrun."""
import argparse
import json
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from hparams.space import load_space, trials, trial_name
from hparams.models import build
from hparams.data import load_npz, make_dataset
from hparams.callbacks import build_callbacks

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/fashion_mnist.npz")
parser.add_argument("--space", default=None, help="json grid, e.g. {\"lr\": [1e-3], \"batch_size\": [64]}")
parser.add_argument("--epochs", type=int, default=12)
parser.add_argument("--runs", default="runs")


def main():
    args = parser.parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x_tr, y_tr), (x_te, y_te) = load_npz(args.data)
    results = []
    for params in trials(load_space(args.space)):
        name = trial_name(params)
        bs = params["batch_size"]
        train_ds = make_dataset(x_tr, y_tr, bs, hvd.size(), hvd.rank(), training=True)
        val_ds = make_dataset(x_te, y_te, bs, hvd.size(), hvd.rank(), training=False)
        steps = len(x_tr) // (bs * hvd.size())
        val_steps = len(x_te) // (bs * hvd.size())

        keras.backend.clear_session()
        model = build(params.get("model", "cnn"))
        scaled_lr = params["lr"] * hvd.size()
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

        run_dir = os.path.join(args.runs, name)
        hist = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
                         validation_data=val_ds, validation_steps=val_steps,
                         callbacks=build_callbacks(run_dir, scaled_lr, steps),
                         verbose=2 if hvd.rank() == 0 else 0)
        best = float(max(hist.history["val_accuracy"]))
        results.append({"trial": name, **params, "best_val_accuracy": best})
        if hvd.rank() == 0:
            with open(os.path.join(run_dir, "result.json"), "w") as f:
                json.dump(results[-1], f, indent=2)

    if hvd.rank() == 0:
        results.sort(key=lambda r: r["best_val_accuracy"], reverse=True)
        print(json.dumps(results[0], indent=2))


if __name__ == "__main__":
    main()
