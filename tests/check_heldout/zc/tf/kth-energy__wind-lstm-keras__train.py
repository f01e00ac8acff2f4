"""Train the 1-h-ahead wind-power LSTM on SCADA data with horovod.tensorflow.keras.

    horovodrun -np 4 python train.py --data data/park_a.npy
"""
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from windkit import config
from windkit.callbacks import build_callbacks
from windkit.data import load_scada, make_dataset, make_windows, normalise
from windkit.model import build_lstm
from windkit.report import summarise


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=None)
    ap.add_argument("--epochs", type=int, default=config.EPOCHS)
    ap.add_argument("--batch-size", type=int, default=config.BATCH_SIZE)
    ap.add_argument("--lr", type=float, default=config.BASE_LR)
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    arr = load_scada(args.data)
    n_train = int(0.85 * len(arr))
    arr = normalise(arr, n_train)
    x_tr, y_tr = make_windows(arr[:n_train])
    x_va, y_va = make_windows(arr[n_train:], stride=config.HORIZON)

    train_ds = make_dataset(x_tr, y_tr, args.batch_size, hvd.size(), hvd.rank())
    val_ds = make_dataset(x_va, y_va, args.batch_size, hvd.size(), hvd.rank(), training=False)
    steps_per_epoch = len(x_tr) // (args.batch_size * hvd.size())

    model = build_lstm(config.SEQ_LEN, len(config.FEATURES))
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])

    history = model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
                        validation_data=val_ds, callbacks=build_callbacks(),
                        verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print(summarise(history))


if __name__ == "__main__":
    main()
