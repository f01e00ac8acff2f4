# cv_fit.py - repeated k-fold for the soil organic carbon regressor (spectra -> SOC)
# run:  mpirun -np 4 python cv_fit.py --csv data/soil_spectra.csv
import os
import argparse

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd


def build_parser():
    ap = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--csv", default="data/soil_spectra.csv")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=512 // hvd.size(),
                    help="per-worker batch (global 512)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--models-dir", default="models/soc")
    return ap


def spectra_model(n_bands):
    inp = keras.Input((n_bands, 1))
    x = layers.Conv1D(16, 9, strides=2, activation="elu")(inp)
    x = layers.Conv1D(32, 9, strides=2, activation="elu")(x)
    x = layers.Conv1D(64, 9, strides=2, activation="elu")(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(64, activation="elu")(x)
    return keras.Model(inp, layers.Dense(1)(x))


def main():
    args = build_parser().parse_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    raw = np.genfromtxt(args.csv, delimiter=",", skip_header=1, dtype=np.float32)
    X, y = raw[:, 1:, None], raw[:, 0]
    X = (X - X.mean(axis=0)) / (X.std(axis=0) + 1e-6)
    os.makedirs(args.models_dir, exist_ok=True)

    rmses = []
    for rep in range(args.repeats):
        perm = np.random.RandomState(100 + rep).permutation(len(y))
        chunks = np.array_split(perm, args.folds)
        for k in range(args.folds):
            va = chunks[k]
            tr = np.concatenate([c for i, c in enumerate(chunks) if i != k])
            tr_rank = tr[hvd.rank()::hvd.size()]
            steps = len(tr) // (args.batch_size * hvd.size())
            train_ds = (tf.data.Dataset.from_tensor_slices((X[tr_rank], y[tr_rank]))
                        .shuffle(len(tr_rank)).repeat().batch(args.batch_size))

            model = spectra_model(X.shape[1])
            # global batch stays 512 whatever the worker count, so the lr is not rescaled
            opt = keras.optimizers.Adam(learning_rate=args.lr)
            model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse",
                          metrics=[keras.metrics.RootMeanSquaredError(name="rmse")])
            callbacks = [
                hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr,
                                                         warmup_epochs=3, steps_per_epoch=steps),
                keras.callbacks.ModelCheckpoint(
                    os.path.join(args.models_dir, f"soc_r{rep}_f{k}.keras"),
                    monitor="val_rmse", mode="min", save_best_only=True),
                keras.callbacks.EarlyStopping(monitor="val_rmse", mode="min", patience=8,
                                              restore_best_weights=True),
            ]
            model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
                      validation_data=(X[va], y[va]), callbacks=callbacks,
                      verbose=1 if hvd.rank() == 0 else 0)
            rmse = model.evaluate(X[va], y[va], verbose=0)[1]
            rmses.append(rmse)
            if hvd.rank() == 0:
                print(f"repeat {rep} fold {k}: RMSE {rmse:.3f}")

    if hvd.rank() == 0:
        print(f"{args.repeats}x{args.folds}-fold RMSE: {np.mean(rmses):.3f} +/- {np.std(rmses):.3f}")


if __name__ == "__main__":
    main()
