"""Mesh-quality classifier. Same script on a laptop CPU, one GPU box, or a Horovod cluster:

    python train.py --train data/train.csv --val data/val.csv
    horovodrun -np 8 -H gpu1:4,gpu2:4 python train.py --device gpu --fp16-allreduce
"""
import argparse

import keras
import horovod.tensorflow.keras as hvd

from rt import device
from rt.callbacks import standard_callbacks
from rt.data import count_rows, mesh_quality_dataset
from rt.model import make_model, make_optimizer


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/train.csv")
    p.add_argument("--val", default="data/val.csv")
    p.add_argument("--device", choices=("auto", "gpu", "cpu"), default="auto")
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--warmup-epochs", type=int, default=2)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--out", default="runs/meshq")
    return p.parse_args()


def main():
    args = get_args()
    where = device.select(args.device)
    if hvd.rank() == 0:
        print(f"{hvd.size()} worker(s), rank 0 on {where}")

    train_ds = mesh_quality_dataset(args.train, args.batch_size, training=True)
    val_ds = mesh_quality_dataset(args.val, args.batch_size, training=False)
    steps = count_rows(args.train) // (args.batch_size * hvd.size())

    model = make_model()
    lr = args.lr * hvd.size()
    optimizer = make_optimizer(args.optimizer, lr)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    dist_opt = hvd.DistributedOptimizer(optimizer, compression=compression)
    model.compile(optimizer=optimizer, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), "accuracy"])

    model.fit(train_ds, steps_per_epoch=steps, validation_data=val_ds, epochs=args.epochs,
              callbacks=standard_callbacks(args.out, args.warmup_epochs, lr),
              verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save(f"{args.out}/final.keras")


if __name__ == "__main__":
    main()
