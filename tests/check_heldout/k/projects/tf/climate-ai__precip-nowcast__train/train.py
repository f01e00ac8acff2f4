"""Radar precipitation nowcasting (ConvLSTM U-Net), Keras + Horovod.

    horovodrun -np 8 -H n1:4,n2:4 python train.py --data-dir /scratch/radar_tfrecords
"""
import argparse

import horovod.tensorflow.keras as hvd
import keras

from nowcast.callbacks import extra_callbacks
from nowcast.data import make_datasets
from nowcast.model import build_model, critical_success_index


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="/scratch/radar_tfrecords")
    p.add_argument("--out-dir", default="runs/nowcast")
    p.add_argument("--in-steps", type=int, default=6)
    p.add_argument("--out-steps", type=int, default=3)
    p.add_argument("--size", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--steps-per-epoch", type=int, default=4000,
                   help="batches per epoch, split over the workers")
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup-epochs", type=int, default=3)
    cfg = vars(p.parse_args())

    hvd.init()

    train_ds, val_ds = make_datasets(cfg, hvd.rank(), hvd.size())
    model = build_model(cfg["in_steps"], cfg["size"], cfg["out_steps"])
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg["lr"]))
    model.compile(optimizer=opt, loss="mae",
                  metrics=[critical_success_index(0.1), critical_success_index(0.3)])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    callbacks += extra_callbacks(cfg)

    model.fit(train_ds,
              steps_per_epoch=cfg["steps_per_epoch"] // hvd.size(),
              epochs=cfg["epochs"],
              validation_data=val_ds,
              callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
