"""Fit the physics-regularised groundwater surrogate on N workers.

    mpirun -np 4 python fit.py                 # defaults from gwsurr/config.py
    mpirun -np 4 python fit.py epochs=120 base_lr=5e-4
"""
import dataclasses
import os
import sys

import keras
import horovod.tensorflow.keras as hvd

from gwsurr.config import Config
from gwsurr.data import pipelines
from gwsurr.model import PhysicsCNN
from gwsurr.utils.hvd_env import init_horovod, is_chief


def parse_overrides(argv):
    kw = {}
    types = {f.name: f.type for f in dataclasses.fields(Config)}
    for a in argv:
        k, v = a.split("=", 1)
        kw[k] = types[k](v) if isinstance(types[k], type) else type(getattr(Config, k))(v)
    return Config(**kw)


cfg = parse_overrides(sys.argv[1:])
rank, size = init_horovod()
keras.utils.set_random_seed(cfg.seed + rank)

train_ds, val_ds, steps = pipelines(cfg, rank, size)

model = PhysicsCNN(mass_weight=cfg.mass_weight)
scaled_lr = cfg.base_lr * size
optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=optimizer, metrics=["mae"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                             steps_per_epoch=steps, verbose=int(is_chief())),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=5, min_lr=1e-6),
]
if is_chief():
    os.makedirs(cfg.out_dir, exist_ok=True)
    callbacks += [keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "gw_cnn_{epoch:03d}.weights.h5"),
                                                  save_weights_only=True),
                  keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv"))]

history = model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs, validation_data=val_ds,
                    callbacks=callbacks, verbose=1 if is_chief() else 0)

if is_chief():
    print("final val_loss %.4e  val_mae %.4e" % (history.history["val_loss"][-1], history.history["val_mae"][-1]))
