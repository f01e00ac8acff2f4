"""Train the ConvLSTM sea-ice forecaster on all GPUs of the allocation.

    mpirun -np 8 -bind-to none python train.py
"""
import os

import horovod.tensorflow.keras as hvd
import keras

from seaice import settings
from seaice.data import make_ds
from seaice.model import build_convlstm, masked_mse
from seaice.runtime import build_optimizer, setup_tf

hvd.init()
setup_tf()

train_ds, n_train, land = make_ds("train", hvd.rank(), hvd.size(), training=True)
val_ds, n_val, _ = make_ds("val", hvd.rank(), hvd.size(), training=False)

model = build_convlstm(settings.LOOKBACK, settings.LEAD, land.shape)
model.compile(optimizer=build_optimizer(), loss=masked_mse(land), metrics=["mae"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=12, restore_best_weights=True),
]
if hvd.rank() == 0:
    os.makedirs(settings.OUT_DIR, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(settings.OUT_DIR, "epoch{epoch:03d}.weights.h5"),
                                                     save_weights_only=True))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(settings.OUT_DIR, "history.csv")))

model.fit(train_ds,
          steps_per_epoch=max(1, n_train // settings.BATCH_PER_GPU),
          validation_data=val_ds,
          epochs=settings.EPOCHS,
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(settings.OUT_DIR, "final.keras"))
