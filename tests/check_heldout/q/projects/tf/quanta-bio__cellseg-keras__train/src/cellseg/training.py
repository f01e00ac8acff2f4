import os

import horovod.tensorflow.keras as hvd
import keras


def build_optimizer(cfg):
    return hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size()))


def default_callbacks(cfg, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv")))
    return cbs
