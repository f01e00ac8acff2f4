"""Data-driven climate emulator (Conv1D + LSTM) trained with Horovod on Polaris.

Started from the ALCF AI-for-Science training (Horovod + Keras session); our own data and model
live in emulator/.
    mpiexec -n 8 --ppn 4 python train.py --series data/cesm_daily.npy --epochs 80
"""
import argparse
import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from emulator.callbacks import make_callbacks
from emulator.data import load_series, windows
from emulator.model import build_emulator
from utils.timing import RankTimer


def get_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--series", default="data/cesm_daily.npy")
    ap.add_argument("--history", type=int, default=60)
    ap.add_argument("--horizon", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=80)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=3, help="warm-up epochs")
    ap.add_argument("--val-years", type=int, default=5)
    ap.add_argument("--run-dir", default="runs/emulator")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    series, _ = load_series(args.series)
    n_val = args.val_years * 365
    train_ds, steps = windows(series[:-n_val], args.history, args.horizon, args.batch_size,
                              hvd.rank(), hvd.size(), shuffle=True)
    val_ds, val_steps = windows(series[-n_val:], args.history, args.horizon, args.batch_size,
                                hvd.rank(), hvd.size(), shuffle=False)

    model = build_emulator(args.history, args.horizon, series.shape[1])
    # scale by the number of GPUs working together on a node
    lr = args.lr * hvd.local_size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])

    callbacks = make_callbacks(initial_lr=lr, warmup_epochs=args.warmup_epochs,
                               steps_per_epoch=steps, run_dir=args.run_dir)
    callbacks.append(RankTimer(args.run_dir, hvd.rank(), steps * args.batch_size))

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps,
              validation_data=val_ds, callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(args.run_dir, "emulator_final.keras"))


if __name__ == "__main__":
    main()
