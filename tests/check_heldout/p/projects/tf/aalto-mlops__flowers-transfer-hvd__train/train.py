"""Transfer learning on tf_flowers with Horovod, two stages (head, then fine-tuning).
Ported from our Keras 2.3 / `import horovod.keras as hvd` script to TF 2.16+ / Keras 3."""
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

import config
from data import make_datasets
from model import build_model

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds, val_ds, n_train = make_datasets()
steps_per_epoch = n_train // config.BATCH_SIZE

model, base = build_model()

# ---- stage 1: train the new head -------------------------------------------------------
opt = keras.optimizers.Adam(learning_rate=config.HEAD_LR * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=config.HEAD_LR * hvd.size(),
                                             warmup_epochs=2, verbose=0),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.ModelCheckpoint("flowers_head.keras"))

verbose = 2 if hvd.rank() == 0 else 0
model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=config.HEAD_EPOCHS,
          validation_data=val_ds, callbacks=callbacks, verbose=verbose)

# ---- stage 2: fine-tune the top of the backbone -----------------------------------------
base.trainable = True
for layer in base.layers[:config.FINE_TUNE_AT]:
    layer.trainable = False

# lower lr for fine-tuning (recompile so that the trainable flags take effect)
model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=config.FINE_TUNE_LR * hvd.size()),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])

ft_callbacks = [hvd.callbacks.MetricAverageCallback()]
if hvd.rank() == 0:
    ft_callbacks.append(keras.callbacks.ModelCheckpoint("flowers_finetuned.keras"))

model.fit(train_ds, steps_per_epoch=steps_per_epoch,
          initial_epoch=config.HEAD_EPOCHS, epochs=config.HEAD_EPOCHS + config.FINE_TUNE_EPOCHS,
          validation_data=val_ds, callbacks=ft_callbacks, verbose=verbose)

if hvd.rank() == 0:
    model.save("flowers_final.keras")
