import argparse
import math
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from lcseg import build_unet, DiceCrossEntropy
from lcseg.io import list_tiles, tile_dataset
from lcseg.utils import get_logger

parser = argparse.ArgumentParser(description="Land-cover U-Net, Horovod data parallel")
parser.add_argument("--data-root", default="/scratch/landcover/tiles")
parser.add_argument("--tile", type=int, default=128)
parser.add_argument("--channels", type=int, default=4)
parser.add_argument("--classes", type=int, default=7)
parser.add_argument("--batch-size", type=int, default=16, help="tiles per GPU")
parser.add_argument("--lr", type=float, default=2e-4, help="learning rate for one GPU")
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--logdir", default="logs/unet")
args = parser.parse_args()

hvd.init()
log = get_logger(hvd.rank())

gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_files = list_tiles(args.data_root, "train")
val_files = list_tiles(args.data_root, "val")
train_ds = tile_dataset(train_files, args.batch_size, args.tile, args.channels, training=True)
val_ds = tile_dataset(val_files, args.batch_size, args.tile, args.channels, training=False)

steps_per_epoch = len(train_files) // (args.batch_size * hvd.size())
validation_steps = math.ceil(len(val_files) / (args.batch_size * hvd.size()))
log.info("%d train tiles, %d val tiles, %d steps/epoch on %d workers",
         len(train_files), len(val_files), steps_per_epoch, hvd.size())

model = build_unet(args.tile, args.channels, args.classes)
optimizer = hvd.DistributedOptimizer(
    keras.optimizers.AdamW(learning_rate=args.lr * hvd.size(), weight_decay=1e-4))
model.compile(optimizer=optimizer,
              loss=DiceCrossEntropy(args.classes),
              metrics=[keras.metrics.SparseCategoricalAccuracy(name="pix_acc")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=2,
                                             steps_per_epoch=steps_per_epoch),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=3),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=8),
]
if hvd.rank() == 0:
    os.makedirs(args.logdir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(args.logdir, "unet-{epoch:03d}.weights.h5"), save_weights_only=True))
    callbacks.append(keras.callbacks.TensorBoard(args.logdir))

history = model.fit(train_ds,
                    steps_per_epoch=steps_per_epoch,
                    validation_data=val_ds,
                    validation_steps=validation_steps,
                    epochs=args.epochs,
                    callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)
log.info("best val_loss %.4f", min(history.history["val_loss"]))
