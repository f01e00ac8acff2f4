"""Train SegFormer-lite on the tiles dataset with Horovod + Keras 3.

    horovodrun -np 4 python train.py --data-dir /data/tiles --epochs 40 --amp
"""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from segl import distributed
from segl.callbacks import build_callbacks
from segl.data import count_examples, make_dataset
from segl.model import SegFormerLite


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data-dir", default="data/tiles")
    p.add_argument("--out-dir", default="runs/segformer")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=16, help="per replica")
    p.add_argument("--base-lr", type=float, default=2e-4)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--num-classes", type=int, default=6)
    p.add_argument("--amp", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    ctx = distributed.setup()
    if args.amp:
        keras.mixed_precision.set_global_policy("mixed_float16")

    train_dir = os.path.join(args.data_dir, "train")
    val_dir = os.path.join(args.data_dir, "val")
    train_ds = make_dataset(train_dir, args.batch_size, training=True,
                            shard=(ctx.size, ctx.rank))
    # every worker scores the whole validation split, so its numbers are global
    val_ds = make_dataset(val_dir, args.batch_size, training=False)
    steps_per_epoch = count_examples(train_dir) // (args.batch_size * ctx.size)

    model = SegFormerLite(num_classes=args.num_classes)
    peak_lr = args.base_lr * ctx.size
    opt = keras.optimizers.AdamW(learning_rate=peak_lr, weight_decay=1e-2)
    model.compile(
        optimizer=hvd.DistributedOptimizer(opt),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="pix_acc")],
    )

    callbacks = build_callbacks(args, peak_lr, steps_per_epoch, is_chief=ctx.rank == 0)
    model.fit(
        train_ds,
        epochs=args.epochs,
        steps_per_epoch=steps_per_epoch,
        validation_data=val_ds,
        callbacks=callbacks,
        verbose=1 if ctx.rank == 0 else 0,
    )
    if ctx.rank == 0:
        model.save_weights(os.path.join(args.out_dir, "final.weights.h5"))


if __name__ == "__main__":
    main()
