import os

from tensorflow import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(out_dir, initial_lr, warmup_epochs, steps_per_epoch):
    """Horovod callbacks on every worker; files are written by worker 0 only."""
    callbacks = [
        # start every worker from rank 0's initial weights
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # average logs (loss, accuracy, val_*) over workers at the end of each epoch
        hvd.callbacks.MetricAverageCallback(),
        # ramp from initial_lr / size to initial_lr (which is already the scaled lr)
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=4, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "ckpt-{epoch:03d}.weights.h5"),
                                            save_weights_only=True),
            keras.callbacks.TensorBoard(os.path.join(out_dir, "tb"), update_freq="epoch"),
            keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")),
        ]
    return callbacks
