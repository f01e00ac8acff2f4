import json
import os

import horovod.tensorflow.keras as hvd
import keras


class SaveState(keras.callbacks.Callback):
    """Writes the last finished epoch next to the weights, so train.py can resume."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_epoch_end(self, epoch, logs=None):
        with open(self.path, "w") as f:
            json.dump({"epoch": epoch, "val_loss": float((logs or {}).get("val_loss", -1))}, f)


def build_callbacks(cfg, scaled_lr, steps_per_epoch, is_chief):
    tcfg = cfg["train"]
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=tcfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=int(is_chief)),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=tcfg["plateau_patience"]),
    ]
    if is_chief:
        out = cfg["out_dir"]
        os.makedirs(out, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(out, "last.weights.h5"), save_weights_only=True),
            keras.callbacks.ModelCheckpoint(os.path.join(out, "best.keras"), monitor="val_loss", save_best_only=True),
            SaveState(os.path.join(out, "state.json")),
            keras.callbacks.CSVLogger(os.path.join(out, "log.csv"), append=True),
            keras.callbacks.TensorBoard(os.path.join(out, "tb")),
        ]
    return cbs
