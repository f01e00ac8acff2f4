"""Image classifier that trains under Horovod, tf.distribute or a single device.

    horovodrun -np 4 python train.py
    python train.py --strategy mirrored
"""
import argparse

import keras

from tfmb import strategy as strategy_lib
from tfmb.callbacks import build_callbacks
from tfmb.data import make_datasets
from tfmb.model import build_model


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strategy", default="horovod", choices=["horovod", "mirrored", "multiworker", "none"])
    ap.add_argument("--data", default=None, help=".npz with x_train/y_train/x_val/y_val")
    ap.add_argument("--batch-size", type=int, default=64, help="per worker")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--warmup-epochs", type=int, default=2)
    ap.add_argument("--ckpt-dir", default="ckpt")
    return ap.parse_args()


def main():
    args = get_args()
    ctx = strategy_lib.setup(args.strategy)
    train_ds, val_ds, steps = make_datasets(ctx, args.batch_size, args.data)

    scaled_lr = args.lr * ctx.size
    with ctx.scope():
        model = build_model()
        opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9)
        if ctx.kind == "horovod":
            opt = ctx.hvd.DistributedOptimizer(opt)
        model.compile(optimizer=opt,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=build_callbacks(ctx, scaled_lr, args.warmup_epochs, args.ckpt_dir),
              verbose=2 if ctx.is_chief else 0)
    if ctx.is_chief:
        model.save_weights(f"{args.ckpt_dir}/final.weights.h5")


if __name__ == "__main__":
    main()
