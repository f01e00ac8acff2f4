"""Train the LSTM day-ahead load forecaster.

    mpirun -np 8 python train.py --csv data/load_2019_2021.csv
    python train.py --backend mirrored
"""
import argparse
import json
import os

import keras

from forecast.distribute import Cluster
from forecast.model import lstm_forecaster
from forecast.pipeline import build_datasets, load_series
from utils.log import setup_logging

parser = argparse.ArgumentParser()
parser.add_argument("--backend", default="horovod", choices=["horovod", "mirrored", "single"])
parser.add_argument("--csv", default=None)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--model-dir", default="models/lstm")
parser.add_argument("--patience", type=int, default=5)


def main(args):
    cluster = Cluster(args.backend)
    log = setup_logging(cluster.rank)
    train_ds, val_ds, steps, (mu, sigma) = build_datasets(load_series(args.csv), cluster,
                                                          batch_size=args.batch_size)
    log.info("backend=%s size=%d steps/epoch=%d", args.backend, cluster.size, steps)

    with cluster.scope():
        model = lstm_forecaster()
        opt = cluster.wrap_optimizer(keras.optimizers.Adam(learning_rate=args.lr * cluster.size))
        model.compile(optimizer=opt, loss="mse", metrics=[keras.metrics.MeanAbsoluteError(name="mae")])

    callbacks = cluster.callbacks() + [
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience, restore_best_weights=True),
    ]
    if cluster.is_chief:
        os.makedirs(args.model_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.model_dir, "best.keras"),
                                                         monitor="val_loss", save_best_only=True))

    history = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
                        callbacks=callbacks, verbose=2 if cluster.is_chief() else 0)

    if cluster.is_chief():
        with open(os.path.join(args.model_dir, "scaler.json"), "w") as f:
            json.dump({"mu": float(mu), "sigma": float(sigma), "epochs_run": len(history.epoch)}, f)


if __name__ == "__main__":
    main(parser.parse_args())
