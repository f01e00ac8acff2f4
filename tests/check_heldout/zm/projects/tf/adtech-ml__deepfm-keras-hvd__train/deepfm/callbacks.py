import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(model_dir, scaled_lr, warmup_epochs, steps_per_epoch):
    os.makedirs(model_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_auc", mode="max", factor=0.5, patience=2),
        keras.callbacks.ModelCheckpoint(os.path.join(model_dir, "ckpt-{epoch:02d}.weights.h5"),
                                        save_weights_only=True, monitor="val_auc", mode="max"),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.TensorBoard(os.path.join(model_dir, "tb")))
    return callbacks
