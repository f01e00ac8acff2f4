import argparse

import horovod.tensorflow.keras as hvd

from pcls import setup_horovod
from pcls.data import CLASSES, load_split, make_dataset
from pcls.model import build_model
from pcls.training import compile_model, make_callbacks


def cli():
    ap = argparse.ArgumentParser(description="LiDAR object crop classification (EdgeConv) with Horovod")
    ap.add_argument("--data", default="/scratch/lidar_crops")
    ap.add_argument("--batch", type=int, default=24, help="per worker")
    ap.add_argument("--lr", type=float, default=0.01, help="single-worker SGD learning rate")
    ap.add_argument("--epochs", type=int, default=80)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--out", default="runs/edgeconv")
    return ap.parse_args()


if __name__ == "__main__":
    args = cli()
    rank, size = setup_horovod()

    x_tr, y_tr = load_split(args.data, "train")
    x_va, y_va = load_split(args.data, "val")
    train_ds = make_dataset(x_tr, y_tr, args.batch, rank, size, training=True)
    val_ds = make_dataset(x_va, y_va, args.batch, rank, size, training=False)
    steps = len(x_tr) // (args.batch * size)
    val_steps = max(1, len(x_va) // (args.batch * size))

    scaled_lr = args.lr * size
    model = compile_model(build_model(x_tr.shape[1], len(CLASSES), k=args.k), scaled_lr)
    if rank == 0:
        model.summary()
    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=make_callbacks(scaled_lr, args.warmup, steps, args.out),
              verbose=2 if rank == 0 else 0)
