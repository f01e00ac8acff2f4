import os

import keras


def build_callbacks(ctx, lr, warmup_epochs, ckpt_dir):
    cbs = []
    if ctx.kind == "horovod":
        hvd = ctx.hvd
        cbs += [
            hvd.callbacks.BroadcastGlobalVariablesCallback(0),
            hvd.callbacks.MetricAverageCallback(),
            hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=warmup_epochs, verbose=1),
        ]
    if ctx.is_chief:
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "epoch-{epoch:02d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(ckpt_dir, "history.csv")))
    return cbs
