import os

import keras
import horovod.tensorflow.keras as hvd


def make_optimizer(cfg):
    opt = keras.optimizers.Adam(learning_rate=cfg.scaled_lr(hvd.size()))
    return hvd.DistributedOptimizer(opt)


def make_callbacks(cfg, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.scaled_lr(hvd.size()),
                                                 warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.ckpt_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.ckpt_dir, "log.csv")))
    return cbs
