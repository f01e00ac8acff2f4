#!/usr/bin/env python
# Cp(x) surrogate for 2-D airfoils trained on an XFOIL sweep; Horovod + Keras fit.
#   horovodrun -np 4 python train.py --train data/xfoil_train.npz --val data/xfoil_val.npz --epochs 300
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from airfoil.data import load_npz, make_dataset
from airfoil.model import CpSurrogate
from airfoil.utils import RunDir


def get_parser():
    p = argparse.ArgumentParser(description="airfoil Cp surrogate")
    p.add_argument("--train", default="data/xfoil_train.npz")
    p.add_argument("--val", default="data/xfoil_val.npz")
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--depth", type=int, default=5)
    p.add_argument("--w-smooth", type=float, default=1e-2)
    p.add_argument("--w-cl", type=float, default=0.1)
    p.add_argument("--runs", default="runs")
    p.add_argument("--name", default=None)
    return p


def main(args):
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x, cp, cl, x_station = load_npz(args.train)
    xv, cpv, clv, _ = load_npz(args.val)
    train_ds = make_dataset(x, cp, cl, args.batch_size, shuffle_buffer=len(x), repeat=True)
    val_ds = make_dataset(xv, cpv, clv, args.batch_size)

    model = CpSurrogate(cp.shape[1], x_station, args.width, args.depth, args.w_smooth)
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss={"cp": "mse", "cl": "mse"}, loss_weights={"cp": 1.0, "cl": args.w_cl},
                  metrics={"cp": ["mae"], "cl": ["mae"]})

    callbacks = [hvd.callbacks.MetricAverageCallback(),
                 keras.callbacks.ReduceLROnPlateau(patience=20, factor=0.5, verbose=0)]
    if hvd.rank() == 0:
        run = RunDir(args.runs, args.name).make()
        run.dump_args(args)
        callbacks += [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                      keras.callbacks.ModelCheckpoint(run.file("best.weights.h5"), save_best_only=True,
                                                      save_weights_only=True),
                      keras.callbacks.CSVLogger(run.file("log.csv"))]

    model.fit(train_ds, steps_per_epoch=len(x) // args.batch_size, epochs=args.epochs,
              validation_data=val_ds, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main(get_parser().parse_args())
