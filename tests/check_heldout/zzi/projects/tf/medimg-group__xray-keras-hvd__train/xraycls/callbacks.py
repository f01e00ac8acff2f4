import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, steps_per_epoch):
    """Callbacks shared by all workers, plus the ones that only the root worker needs."""
    shared = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.lr * hvd.size(),
                                                 warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=2),
    ]
    if hvd.rank() != 0:
        return shared

    os.makedirs(cfg.save_dir, exist_ok=True)
    root_only = [
        # initial weights go out from the root worker
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ModelCheckpoint(os.path.join(cfg.save_dir, "xray_best.keras"),
                                        monitor="val_accuracy", mode="max", save_best_only=True),
        keras.callbacks.TensorBoard(os.path.join(cfg.save_dir, "tb")),
    ]
    return root_only + shared
