import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(out_dir, base_lr, warmup_epochs, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=base_lr * hvd.size(), warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "crnn_{epoch:03d}.weights.h5"),
                                            save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")),
        ]
    return cbs
