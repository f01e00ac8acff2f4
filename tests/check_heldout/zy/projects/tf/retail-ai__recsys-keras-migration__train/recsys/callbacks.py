import os

import keras
import horovod.tensorflow.keras as hvd

from .compat import KERAS_MAJOR, checkpoint_path


def build_callbacks(cfg, scaled_lr):
    callbacks = []
    if KERAS_MAJOR < 3:
        # Keras 3: the callback needs the TF1 session (keras.backend.get_session), which is gone.
        # hvd.DistributedOptimizer syncs the weights on its first allreduce instead.
        callbacks.append(hvd.callbacks.BroadcastGlobalVariablesCallback(0))
    callbacks += [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg["warmup_epochs"],
                                                 verbose=1 if hvd.rank() == 0 else 0),
        keras.callbacks.ModelCheckpoint(checkpoint_path(os.path.join(cfg["out_dir"], "neumf-{epoch:02d}.h5")),
                                        save_weights_only=True,
                                        verbose=1 if hvd.rank() == 0 else 0),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "history.csv")))
    return callbacks
