import json
import os

import keras
import horovod.tensorflow.keras as hvd


class JsonHistory(keras.callbacks.Callback):
    def __init__(self, path):
        super().__init__()
        self.path, self.rows = path, []

    def on_epoch_end(self, epoch, logs=None):
        self.rows.append({"epoch": epoch, **{k: float(v) for k, v in (logs or {}).items()}})
        with open(self.path, "w") as f:
            json.dump(self.rows, f, indent=1)


def build_callbacks(run_dir, scaled_lr, steps_per_epoch, warmup_epochs=2, patience=3):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=patience,
                                      restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(run_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"),
                                                   monitor="val_accuracy", mode="max", save_best_only=True))
        cbs.append(JsonHistory(os.path.join(run_dir, "history.json")))
    return cbs
