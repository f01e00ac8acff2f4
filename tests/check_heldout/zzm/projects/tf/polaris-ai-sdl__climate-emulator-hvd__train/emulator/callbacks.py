import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(initial_lr, warmup_epochs, steps_per_epoch, run_dir, patience=8):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(run_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "emulator.weights.h5"),
                                                   save_weights_only=True, save_best_only=True))
        cbs.append(keras.callbacks.TensorBoard(log_dir=os.path.join(run_dir, "tb")))
    return cbs
