import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(args):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.ckpt) or ".", exist_ok=True)
        os.makedirs(os.path.dirname(args.log_csv) or ".", exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(args.ckpt, save_weights_only=True, save_best_only=True,
                                                   monitor="val_loss"))
        cbs.append(keras.callbacks.CSVLogger(args.log_csv))
    return cbs
