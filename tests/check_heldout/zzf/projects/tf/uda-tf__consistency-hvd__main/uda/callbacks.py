import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(model_dir, lr, warmup_epochs, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
        keras.callbacks.ReduceLROnPlateau(monitor="val_accuracy", mode="max", factor=0.5, patience=5),
    ]
    if hvd.rank() == 0:
        os.makedirs(model_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(model_dir, "uda.weights.h5"),
                                                   save_weights_only=True, save_best_only=True,
                                                   monitor="val_accuracy", mode="max"))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(model_dir, "history.csv"), append=True))
    return cbs
