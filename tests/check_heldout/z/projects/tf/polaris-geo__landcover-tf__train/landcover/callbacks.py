import json
import os

import keras
import horovod.tensorflow.keras as hvd


def is_chief():
    """Chief = worker 0 of the TFJob (TF_CONFIG); a single process without TF_CONFIG is the chief."""
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    task = tf_config.get("task", {})
    return task.get("type", "chief") == "chief" or (task.get("type") == "worker" and task.get("index") == 0)


def build_callbacks(out_dir, base_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=base_lr, warmup_epochs=3, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4),
    ]
    if is_chief():
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv"), append=True))
    return cbs
