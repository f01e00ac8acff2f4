import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(args, peak_lr, steps_per_epoch, is_chief):
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(
            initial_lr=peak_lr, warmup_epochs=args.warmup_epochs,
            steps_per_epoch=steps_per_epoch, verbose=int(is_chief)),
        keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=4),
    ]
    if is_chief:
        os.makedirs(args.out_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(
                os.path.join(args.out_dir, "epoch-{epoch:03d}.weights.h5"),
                save_weights_only=True),
            keras.callbacks.TensorBoard(log_dir=os.path.join(args.out_dir, "tb")),
            keras.callbacks.CSVLogger(os.path.join(args.out_dir, "history.csv")),
        ]
    return callbacks
