import os

import keras
import horovod.tensorflow.keras as hvd

from . import config


def compile_model(model, base_lr):
    lr = base_lr * hvd.size()
    opt = keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-5, clipnorm=None)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])
    return lr


def callbacks(initial_lr, warmup_epochs=config.WARMUP_EPOCHS, ckpt_dir=config.CKPT_DIR):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs, verbose=1),
    ]
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "meshgnn-{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
    return cbs
