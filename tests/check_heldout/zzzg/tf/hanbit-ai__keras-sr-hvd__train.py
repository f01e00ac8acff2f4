import argparse
import os

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from srkit.data import train_dataset, val_dataset
from srkit.model import build_rcan_lite, psnr, ssim

parser = argparse.ArgumentParser(description="RCAN-lite x4, Keras + Horovod")
parser.add_argument("--train", default="data/DF2K/*.png")
parser.add_argument("--val", default="data/Urban100/HR/*.png")
parser.add_argument("--num-train-images", type=int, default=3450)
parser.add_argument("--patch", type=int, default=48)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--base-lr", type=float, default=1e-4)
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--warmup-epochs", type=int, default=3)
parser.add_argument("--logdir", default="logs/rcan_lite")


def main(args):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = train_dataset(args.train, args.patch, 4, args.batch_size, hvd.size(), hvd.rank())
    val_ds = val_dataset(args.val, 4)
    steps = max(1, args.num_train_images // (args.batch_size * hvd.size()))

    model = build_rcan_lite()
    lr = args.base_lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="mae", metrics=[psnr, ssim])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_psnr", mode="max", factor=0.5, patience=10),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.logdir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, "best.weights.h5"), monitor="val_psnr",
                                            mode="max", save_best_only=True, save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(args.logdir, "history.csv")),
        ]

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main(parser.parse_args())
