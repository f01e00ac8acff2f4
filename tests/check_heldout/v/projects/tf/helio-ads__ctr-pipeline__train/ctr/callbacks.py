import os

import horovod.tensorflow.keras as hvd
import keras


def build_callbacks(cfg, is_chief):
    """Horovod callbacks first (broadcast, then metric averaging), chief-only I/O after them."""
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if is_chief:
        os.makedirs(cfg.model_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.model_dir, "ckpt-{epoch:02d}.weights.h5"),
                                            save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.model_dir, "history.csv")),
        ]
    return callbacks
