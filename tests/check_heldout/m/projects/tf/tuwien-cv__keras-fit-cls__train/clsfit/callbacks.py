import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(args, scaled_lr, steps_per_epoch):
    cbs = [
        # rank 0's initial weights (and, after a resume, its restored weights) go to every worker
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # epoch-end logs become averages over workers before anything below reads them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=4, min_lr=1e-5),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True, save_freq="epoch"))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(args.out_dir, "history.csv")))
    return cbs
