import argparse
import logging
import os

import keras
import horovod.tensorflow.keras as hvd

from twostream import configure_devices, two_stream_model
from twostream.data import build_split, to_dataset
from twostream.schedule import StepDecay

logging.basicConfig(level=logging.INFO)


def get_parser():
    parser = argparse.ArgumentParser("two-stream action recognition (EPIC-55 verbs)")
    parser.add_argument("--classes", type=int, default=12)
    parser.add_argument("--train-videos", type=int, default=480)
    parser.add_argument("--val-videos", type=int, default=96)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--milestones", type=int, nargs="*", default=[25, 35])
    parser.add_argument("--fusion", choices=["late", "concat"], default="late")
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--save-dir", default="checkpoints/two_stream")
    return parser


def main(args):
    hvd.init()
    configure_devices(mixed_precision=args.amp)

    x_tr, y_tr = build_split(args.train_videos, args.classes)
    x_va, y_va = build_split(args.val_videos, args.classes, offset=50_000)
    train_ds = to_dataset(x_tr, y_tr, args.batch, hvd.rank(), hvd.size(), training=True)
    val_ds = to_dataset(x_va, y_va, args.batch, hvd.rank(), hvd.size(), training=False)
    steps_per_epoch = args.train_videos // hvd.size() // args.batch

    model = two_stream_model(args.classes, fusion=args.fusion)
    optimizer = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
    if args.amp:
        optimizer = keras.mixed_precision.LossScaleOptimizer(optimizer)
    model.compile(optimizer=hvd.DistributedOptimizer(optimizer),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr, warmup_epochs=args.warmup,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        StepDecay(args.milestones),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.save_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.save_dir, "best.weights.h5"), monitor="val_accuracy",
            save_best_only=True, save_weights_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.save_dir, "history.csv")))

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
              validation_data=val_ds, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main(get_parser().parse_args())
