import keras
import horovod.tensorflow.keras as hvd


def fold_callbacks(fold, lr, steps_per_epoch, ckpt_path, patience=4):
    """Built anew for every fold: the broadcast callback only fires once per instance."""
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=2,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience,
                                      restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(ckpt_path, monitor="val_loss", save_best_only=True,
                                                   save_weights_only=True))
    return cbs
