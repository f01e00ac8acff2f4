import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, run_dir, lr, steps_per_epoch):
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch),
    ]
    if hvd.rank() == 0:
        os.makedirs(run_dir, exist_ok=True)
        callbacks.append(keras.callbacks.TensorBoard(os.path.join(run_dir, "tb"), update_freq=200))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(run_dir, "history.csv")))
    # hourly-ish snapshots for the ops dashboard; the scheduler may preempt us
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(run_dir, "snapshots", "firenet_{epoch:03d}.weights.h5"), save_weights_only=True))
    return callbacks
