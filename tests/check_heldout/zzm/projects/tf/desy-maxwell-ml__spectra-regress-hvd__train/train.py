"""Regress physical parameters from simulated X-ray spectra.

Custom TF2 loop with Horovod; skeleton from the DESY Maxwell "distributed training" workshop,
gradient accumulation added for the A100-40GB nodes.
"""
import argparse
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from spectra.data import read_h5, sharded_dataset
from spectra.io import save_weights
from spectra.model import spectra_net
from spectra.steps import AccumulatingStepper


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/spectra_train.h5")
    ap.add_argument("--val", default="data/spectra_val.h5")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--accum", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--run-dir", default="runs/spectra")
    return ap.parse_args()


def main():
    args = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = read_h5(args.train)
    x_va, y_va = read_h5(args.val)
    train_ds = sharded_dataset(x_tr, y_tr, args.batch_size, hvd.rank(), hvd.size())
    val_ds = sharded_dataset(x_va, y_va, args.batch_size, hvd.rank(), hvd.size(), shuffle=False)

    model = spectra_net(x_tr.shape[1], y_tr.shape[1])
    optimizer = keras.optimizers.Adam(learning_rate=args.lr)
    optimizer.build(model.trainable_variables)
    stepper = AccumulatingStepper(model, optimizer, keras.losses.MeanSquaredError(), args.accum)

    # same starting point on every rank
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)

    best = np.inf
    for epoch in range(args.epochs):
        t0, losses = time.time(), []
        for x, y in train_ds:
            losses.append(float(stepper.step(x, y)))
        ev = [stepper.evaluate(x, y) for x, y in val_ds]
        val_mse = hvd.allreduce(tf.reduce_mean([e[0] for e in ev]), name="val_mse")
        val_mae = hvd.allreduce(tf.reduce_mean([e[1] for e in ev]), name="val_mae")
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} train {np.mean(losses):.5f} val_mse {float(val_mse):.5f} "
                  f"val_mae {float(val_mae):.5f} {time.time() - t0:.1f}s", flush=True)
        if float(val_mse) < best:
            best = float(val_mse)
            save_weights(model, args.run_dir, "best")
    save_weights(model, args.run_dir, "last")


if __name__ == "__main__":
    main()
