"""Elastic Keras fit for the cloud-type classifier.

    horovodrun -np 4 --min-np 1 --max-np 8 --host-discovery-script ./hosts.sh python train.py --epochs 24
"""
import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from skyfit.data import load_arrays, rank_dataset, steps_for
from skyfit.model import cloud_net
from skyfit.settings import from_cli

cfg = from_cli()
hvd.init()

gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_val, y_val) = load_arrays(cfg)

model = cloud_net(cfg.image_size)
opt = keras.optimizers.Adam(learning_rate=cfg.base_lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])

state = hvd.elastic.KerasState(model, batch=0, epoch=0)


def on_state_reset():
    # keep the linear scaling rule when workers come or go
    model.optimizer.learning_rate.assign(cfg.base_lr * hvd.size())


state.register_reset_callbacks([on_state_reset])


@hvd.elastic.run
def train(state):
    callbacks = [
        hvd.elastic.CommitStateCallback(state, batches_per_commit=50),
        hvd.elastic.UpdateBatchStateCallback(state),
        hvd.elastic.UpdateEpochStateCallback(state),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "cloud_net.keras")))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv"), append=True))

    model.fit(rank_dataset(x_train, y_train, cfg.batch_size, training=True),
              steps_per_epoch=steps_for(len(x_train), cfg.batch_size),
              validation_data=rank_dataset(x_val, y_val, cfg.batch_size, training=False).repeat(),
              validation_steps=steps_for(len(x_val), cfg.batch_size),
              epochs=cfg.epochs, initial_epoch=state.epoch,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


train(state)
