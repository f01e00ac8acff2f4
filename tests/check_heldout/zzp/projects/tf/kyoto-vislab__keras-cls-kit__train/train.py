"""keras-cls-kit: train a small ResNet on CIFAR-10 with Horovod.

    horovodrun -np 4 python train.py --set epochs=60 width=96
"""
import datetime
import json
import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from clskit import envsetup
from clskit.config import get_config
from clskit.data import load
from clskit.models import resnet_like

cfg = get_config()
hvd.init()
envsetup.configure_gpus()
envsetup.seed_everything(cfg["seed"])

stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
exp_dir = os.path.join(cfg["out"], f"{stamp}_w{cfg['width']}_np{hvd.size()}")

train_ds, val_ds, steps_per_epoch = load(cfg, hvd.size(), hvd.rank())
model = resnet_like(cfg["width"])

schedule = keras.optimizers.schedules.CosineDecayRestarts(
    initial_learning_rate=cfg["lr"] * hvd.size(),
    first_decay_steps=cfg["first_decay_epochs"] * steps_per_epoch,
    t_mul=2.0, m_mul=0.9, alpha=1e-3)
opt = keras.optimizers.SGD(learning_rate=schedule, momentum=0.9, nesterov=True)
opt = hvd.DistributedOptimizer(opt)

model.compile(optimizer=opt,
              loss=keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=cfg["label_smoothing"]),
              metrics=["accuracy"])

callbacks = [hvd.callbacks.MetricAverageCallback()]
if hvd.rank() == 0:
    os.makedirs(exp_dir, exist_ok=True)
    with open(os.path.join(exp_dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    callbacks += [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ModelCheckpoint(os.path.join(exp_dir, "best.weights.h5"), monitor="val_accuracy",
                                        mode="max", save_best_only=True, save_weights_only=True),
        keras.callbacks.CSVLogger(os.path.join(exp_dir, "history.csv")),
        keras.callbacks.TensorBoard(log_dir=os.path.join(exp_dir, "tb")),
    ]

model.fit(train_ds,
          epochs=cfg["epochs"],
          steps_per_epoch=steps_per_epoch,
          validation_data=val_ds,
          callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save_weights(os.path.join(exp_dir, "final.weights.h5"))
