#!/usr/bin/env python
"""Sea-ice concentration model, Keras + Horovod, for 12h SLURM slots.

sbatch --requeue --time=12:00:00 --ntasks=8 --gpus-per-task=1 --wrap "srun python train.py"

Each run trains until the slot is nearly over, saves, and requeues itself; the next run resumes
from <checkpoint-dir>/last.weights.h5 at the saved epoch.
"""
import argparse
import json
import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from icekit import slurm
from icekit.callbacks import WallTimeGuard
from icekit.data import load, make_dataset
from icekit.model import concentration_net

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/seaice_tiles.npz")
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--batch-size", type=int, default=16)
ap.add_argument("--lr", type=float, default=2e-4)
ap.add_argument("--checkpoint-dir", default="checkpoints")
ap.add_argument("--no-requeue", action="store_true")
args = ap.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x_train, y_train, x_val, y_val = load(args.data)
train_ds = make_dataset(x_train, y_train, args.batch_size)
val_ds = make_dataset(x_val, y_val, args.batch_size, shuffle=False)

model = concentration_net(x_train.shape[1:])
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="binary_crossentropy",
              metrics=[keras.metrics.MeanAbsoluteError(name="mae")])

state_file = os.path.join(args.checkpoint_dir, "state.json")
weights_file = os.path.join(args.checkpoint_dir, "last.weights.h5")
initial_epoch = 0
if os.path.exists(state_file) and os.path.exists(weights_file):
    model.load_weights(weights_file)
    with open(state_file) as f:
        initial_epoch = json.load(f)["next_epoch"]

guard = WallTimeGuard(slurm.end_time())
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=3, verbose=0),
    guard,
]


class SaveState(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        with open(state_file, "w") as f:
            json.dump({"next_epoch": epoch + 1, "logs": {k: float(v) for k, v in (logs or {}).items()}}, f)


if hvd.rank() == 0:
    os.makedirs(args.checkpoint_dir, exist_ok=True)
    callbacks += [keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "last.weights.h5"),
                                                  save_weights_only=True),
                  SaveState()]

model.fit(train_ds, steps_per_epoch=len(x_train) // args.batch_size,
          validation_data=val_ds, epochs=args.epochs, initial_epoch=initial_epoch,
          callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

if guard.stopped and not args.no_requeue:
    if hvd.rank() == 0:
        print("wall time nearly used, requeueing", flush=True)
        slurm.requeue()
else:
    if hvd.rank() == 0:
        model.save(os.path.join(args.checkpoint_dir, "final.keras"))
