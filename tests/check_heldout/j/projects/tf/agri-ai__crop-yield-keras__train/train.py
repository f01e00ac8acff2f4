"""Corn yield regression from growing-season weather and soil features.

    horovodrun -np 4 python train.py --table data/corn_county_1980_2022.csv
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from cropyield.features import eval_dataset, normalizer, read_table, split_by_year, train_dataset
from cropyield.model import build_model
from cropyield.paths import run_dir, save_args
from cropyield.report import residual_table, write_report

parser = argparse.ArgumentParser()
parser.add_argument("--table", default="data/corn_county_1980_2022.csv")
parser.add_argument("--holdout-years", type=int, nargs="+", default=[2019, 2020, 2021, 2022])
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--out", default="runs")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x, y, years = read_table(args.table)
(x_tr, y_tr), (x_ho, y_ho) = split_by_year(x, y, years, args.holdout_years)
ho_years = years[[yr in args.holdout_years for yr in years]]
norm = normalizer(x_tr)
train_ds, n_local = train_dataset(norm(x_tr), y_tr, args.batch_size, hvd.rank(), hvd.size(), seed=1)
holdout_ds = eval_dataset(norm(x_ho), y_ho, 1024)

model = build_model(x.shape[1])
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="mse", metrics=[tf.keras.metrics.RootMeanSquaredError(name="rmse")])

callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
if hvd.rank() == 0:
    out = run_dir(args.out)
    save_args(out, args)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(out, "best.keras"), monitor="val_rmse",
                                                        save_best_only=True))

# every worker scores the same, complete hold-out years, so rank 0's val_rmse is the job's
model.fit(train_ds, steps_per_epoch=len(x_tr) // (args.batch_size * hvd.size()), epochs=args.epochs,
          validation_data=holdout_ds, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    loss, rmse = model.evaluate(holdout_ds, verbose=0)
    print(f"hold-out years {args.holdout_years}: RMSE {rmse:.2f} bu/ac")
    pred = model.predict(holdout_ds, verbose=0).ravel()
    print("per-year report:", write_report(os.path.join(out, "holdout_by_year.csv"),
                                           residual_table(pred, y_ho, ho_years)))
