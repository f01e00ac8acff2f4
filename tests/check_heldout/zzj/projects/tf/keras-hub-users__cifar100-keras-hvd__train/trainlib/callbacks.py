import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(args, scaled_lr):
    callbacks = [
        # start every worker from rank 0's weights
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                                 verbose=1 if hvd.rank() == 0 else 0),
        keras.callbacks.LearningRateScheduler(
            lambda epoch, lr: lr if epoch < args.warmup_epochs else scaled_lr * 0.2 ** (epoch // 30)),
    ]
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(args.ckpt_dir, 'epoch{epoch:03d}.weights.h5'), save_weights_only=True))
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.ckpt_dir, 'history.csv')))
    return callbacks
