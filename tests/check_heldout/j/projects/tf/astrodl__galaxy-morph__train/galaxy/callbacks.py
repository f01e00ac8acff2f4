import os

from tensorflow import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, initial_lr, steps_per_epoch):
    callbacks = [
        # weights and optimizer slots of rank 0 go to everyone after the first batch
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # epoch logs (loss, accuracy, val_*) become means over workers before anything reads them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["out_dir"], exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "morphnet-{epoch:03d}.weights.h5"),
                                            save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "history.csv")),
        ]
    return callbacks
