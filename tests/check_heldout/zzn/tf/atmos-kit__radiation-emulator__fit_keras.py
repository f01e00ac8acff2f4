#!/usr/bin/env python
"""Emulate a column radiative-transfer scheme (longwave + shortwave heating rates) with an MLP.

Inputs per column: T, q, O3 profiles on 60 levels + surface temperature, albedo, cos(SZA).
Outputs: heating rates on 60 levels and the four boundary fluxes.  The loss adds an energy-consistency
term: the column-integrated heating must match the net boundary flux divergence.

Long cosine schedule with warm restarts; run with e.g.  horovodrun -np 8 python fit_keras.py --epochs 400
"""
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd_tf
import horovod.tensorflow.keras as hvd

N_LEV = 60
CP_OVER_G = 1004.0 / 9.81


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/rrtm_columns_train.npz")
    ap.add_argument("--valid", default="data/rrtm_columns_valid.npz")
    ap.add_argument("--batch", type=int, default=1024, help="columns per worker and step")
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--epochs", type=int, default=400)
    ap.add_argument("--restart-epochs", type=int, default=25)
    ap.add_argument("--energy-weight", type=float, default=0.1)
    ap.add_argument("--outdir", default="models/rad_emulator")
    return ap.parse_args()


def load(path):
    with np.load(path) as f:
        return f["x"].astype(np.float32), f["y"].astype(np.float32), f["dp"].astype(np.float32)


class EnergyConsistentLoss(keras.losses.Loss):
    def __init__(self, dp_mean, weight, **kw):
        super().__init__(**kw)
        self.dp = tf.constant(dp_mean)
        self.weight = weight

    def call(self, y_true, y_pred):
        mse = tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)
        heat = y_pred[:, :N_LEV]
        toa_dn, toa_up, sfc_dn, sfc_up = (y_pred[:, N_LEV + i] for i in range(4))
        column = CP_OVER_G * tf.reduce_sum(heat * self.dp, axis=-1) / 86400.0
        net = (toa_dn - toa_up) - (sfc_dn - sfc_up)
        return mse + self.weight * tf.square(column - net) / 1e4


def main():
    args = cli()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x, y, dp = load(args.train)
    xv, yv, _ = load(args.valid)
    # normalisation from the training columns (identical on every worker: every worker reads the whole file)
    x_mu, x_sd = x.mean(0), x.std(0) + 1e-6
    y_mu, y_sd = y.mean(0), y.std(0) + 1e-6
    if hvd.rank() == 0:
        os.makedirs(args.outdir, exist_ok=True)
        with open(os.path.join(args.outdir, "norm.json"), "w") as f:
            json.dump({k: v.tolist() for k, v in dict(x_mu=x_mu, x_sd=x_sd, y_mu=y_mu, y_sd=y_sd).items()}, f)

    # contiguous block of columns per worker; the remainder is dropped so shards are equal
    per_worker = len(x) // hvd.size()
    lo = hvd.rank() * per_worker
    xs, ys = (x[lo:lo + per_worker] - x_mu) / x_sd, (y[lo:lo + per_worker] - y_mu) / y_sd
    train = (tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(200_000, seed=hvd.rank())
             .batch(args.batch, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE))
    steps = per_worker // args.batch
    val = tf.data.Dataset.from_tensor_slices(((xv - x_mu) / x_sd, (yv - y_mu) / y_sd)).batch(4096)

    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((x.shape[1],))] +
                             [keras.layers.Dense(512, activation="swish") for _ in range(5)] +
                             [keras.layers.Dense(y.shape[1])])

    schedule = keras.optimizers.schedules.CosineDecayRestarts(
        initial_learning_rate=args.lr * hvd.size(), first_decay_steps=args.restart_epochs * steps,
        t_mul=1.5, m_mul=0.8, alpha=1e-3)
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=schedule))
    model.compile(optimizer=opt, loss=EnergyConsistentLoss(dp.mean(0) / 100.0, args.energy_weight),
                  metrics=[keras.metrics.MeanAbsoluteError(name="mae")])

    # build, then copy rank 0's weights before the first step (the Sequential is built by its Input layer)
    hvd_tf.broadcast_variables(model.variables, root_rank=0)

    cbs = [hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(args.outdir, "rad_mlp.keras"),
                                                monitor="val_mae", save_best_only=True),
                keras.callbacks.CSVLogger(os.path.join(args.outdir, "log.csv"), append=True)]
    model.fit(train, steps_per_epoch=steps, epochs=args.epochs, validation_data=val,
              callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
