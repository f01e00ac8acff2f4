import os

from tensorflow import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(out_dir, initial_lr, warmup_epochs, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
        # after MetricAverageCallback, so every worker sees the same val_loss and lowers the lr together
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=3),
    ]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"), save_best_only=True))
        cbs.append(keras.callbacks.TensorBoard(os.path.join(out_dir, "tb")))
    return cbs
