import os

import horovod.tensorflow.keras as hvd
import keras


def build_callbacks(cfg, scaled_lr, steps_per_epoch, run_dir):
    callbacks = [
        # rank 0's initial weights (and optimizer state) go to every replica
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # average the logged metrics (train and val) over replicas at epoch end
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr,
                                                 warmup_epochs=cfg.optim.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch,
                                                 verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(run_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"), monitor="val_accuracy",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(run_dir, "history.csv")),
        ]
    return callbacks
