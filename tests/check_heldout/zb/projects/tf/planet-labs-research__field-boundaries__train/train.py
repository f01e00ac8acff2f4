"""Field extent + boundary segmentation from monthly PlanetScope composites (4 bands x 3 months).

Global batch is fixed (GLOBAL_BATCH tiles per step whatever the number of workers), so the learning
rate in the run sheet is used as is.
    horovodrun -np 16 -hostfile $PBS_NODEFILE python train.py --records /scratch/fields/v5
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from fieldseg.data import records_dataset
from fieldseg.io import RunIO
from fieldseg.model import build_fractal_unet
from fieldseg.step import StepRunner

GLOBAL_BATCH = 128


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--records", default="/scratch/fields/v5")
    p.add_argument("--run-dir", default=os.environ.get("FIELDS_RUN_DIR", "runs/fields"))
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--records-per-file", type=int, default=512)
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    batch = GLOBAL_BATCH // hvd.size()
    train_ds, train_steps = records_dataset(os.path.join(args.records, "train"), batch, args.records_per_file,
                                            hvd.rank(), hvd.size(), training=True)
    val_ds, val_steps = records_dataset(os.path.join(args.records, "val"), batch, args.records_per_file,
                                        hvd.rank(), hvd.size(), training=False)

    model = build_fractal_unet()
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr)
    runner = StepRunner(model, opt)
    io = RunIO(args.run_dir, model, opt, is_chief=hvd.rank() == 0)

    first = True
    for epoch in range(args.epochs):
        train_loss = tf.keras.metrics.Mean()
        for x, y in train_ds.take(train_steps):
            train_loss.update_state(runner.train_step(x, y, first))
            first = False
        val_loss = tf.keras.metrics.Mean()
        for x, y in val_ds.take(val_steps):
            val_loss.update_state(runner.eval_step(x, y))
        # every worker ran val_steps full batches: the mean of the worker means is the mean
        tr = hvd.allreduce(train_loss.result(), name="train_loss")
        va = hvd.allreduce(val_loss.result(), name="val_loss")
        io.end_epoch(epoch, {"train_loss": float(tr), "val_loss": float(va)})


if __name__ == "__main__":
    main()
