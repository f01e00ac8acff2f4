import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(out_dir, lr, warmup_epochs, steps_per_epoch):
    """Callbacks for every worker plus the ones only the chief runs."""
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.weights.h5"), monitor="val_dice",
                                            mode="max", save_best_only=True, save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv"), append=True),
        ]
    return cbs
