#!/usr/bin/env python
"""Multi-view pulsar candidate classifier for the LOTAAS-style survey.

sbatch example (4 nodes x 4 GPUs):
    srun --ntasks-per-node=4 --gpus-per-node=4 python train.py --data $DATA/lotaas --run-dir runs/v7
"""
import argparse

import keras
import horovod.tensorflow.keras as hvd

from psrclf import configure_devices
from psrclf.candidates import read_candidate_files, class_weights, make_dataset
from psrclf.model import build_model
from psrclf.callbacks import make_callbacks


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--run-dir", default="runs/psr")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=5e-4)
    return ap.parse_args()


def main():
    args = parse_args()
    hvd.init()
    configure_devices(verbose=hvd.rank() == 0)

    x_tr, y_tr = read_candidate_files(f"{args.data}/train")
    x_va, y_va = read_candidate_files(f"{args.data}/val")
    train_ds = make_dataset(x_tr, y_tr, args.batch, hvd.size(), hvd.rank(), train=True)
    val_ds = make_dataset(x_va, y_va, args.batch, hvd.size(), hvd.rank(), train=False)
    steps = len(y_tr) // (args.batch * hvd.size())
    val_steps = len(y_va) // (args.batch * hvd.size())

    model = build_model()
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), keras.metrics.Recall(name="recall")])

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps,
              validation_data=val_ds, validation_steps=max(val_steps, 1),
              class_weight=class_weights(y_tr),
              callbacks=make_callbacks(args.run_dir, args.lr),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
