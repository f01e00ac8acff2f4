"""Weekly store x SKU demand model.  Run on the training pool with
    horovodrun -np 8 python train.py --data-dir /datasets/demand-sense/v12
"""
import argparse

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from demand import settings
from demand.callbacks import build_callbacks
from demand.data import load_split
from demand.export import write_artifacts
from demand.model import build_model

parser = argparse.ArgumentParser()
parser.add_argument("--data-dir", default=settings.DATA_DIR)
parser.add_argument("--artifact-dir", default=settings.ARTIFACT_DIR)
parser.add_argument("--epochs", type=int, default=settings.EPOCHS)
parser.add_argument("--steps-per-epoch", type=int, default=settings.STEPS_PER_EPOCH)
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds = load_split(args.data_dir, "train", settings.BATCH_PER_WORKER, hvd.rank(), hvd.size(), shuffle=True)
val_ds = load_split(args.data_dir, "val", settings.BATCH_PER_WORKER, hvd.rank(), hvd.size(), shuffle=False)

model = build_model()
optimizer = keras.optimizers.Adam(learning_rate=settings.LEARNING_RATE * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(optimizer), loss="mse",
              metrics=[keras.metrics.MeanAbsoluteError(name="mae")])

model.fit(train_ds, epochs=args.epochs, steps_per_epoch=args.steps_per_epoch,
          validation_data=val_ds, validation_steps=settings.VAL_STEPS,
          callbacks=build_callbacks(args.artifact_dir, hvd.rank() == 0),
          verbose=1 if hvd.rank() == 0 else 0)

val_loss, val_mae = model.evaluate(val_ds, steps=settings.VAL_STEPS, verbose=0)
if hvd.rank() == 0:
    metrics = {"val_mse_log_units": float(val_loss), "val_mae_log_units": float(val_mae)}
    path = write_artifacts(model, args.artifact_dir, metrics, hvd.size())
    print(f"final val mae (log1p units): {val_mae:.4f} -> {path}")
